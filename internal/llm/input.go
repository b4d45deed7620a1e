package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

const (
	maxPrompt   = 1 << 20  // JSON is looked for in this much of the prompt
	maxText     = 64 << 10 // this much of the input is read for values and answers
	maxJSONMiss = 16       // failed attempts at reading JSON, after which the rest is read as text
)

// doc is a prompt as the built-in model reads it: the instruction, which it never answers with, and
// the input the instruction is about.
type doc struct {
	instruction string // the system message and the prompt's instruction parts
	text        string // the input: its text, its JSON strings' contents and its JSON members as "key: value"
	lower       string // text, its ASCII letters lowered (positions agree)
	prose       string // the input's text alone, for text answers
}

// readPrompt reads the messages of a request. names are the words of the schema's fields and enum
// values, which an instruction that lists them is told by.
func readPrompt(msgs []Message, names []string) *doc {
	var user, system strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case "user":
			user.WriteString(m.Content + "\n\n")
		case "system":
			system.WriteString(m.Content + "\n")
		}
	}
	prompt := clip(user.String(), maxPrompt)
	var plain, text, prose strings.Builder
	found := false
	last, miss := 0, 0
	for i := 0; i < len(prompt) && miss < maxJSONMiss; i++ {
		j := strings.IndexAny(prompt[i:], "{[")
		if j < 0 {
			break
		}
		i += j
		if !jsonStarts(prompt, i) {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(prompt[i:]))
		var raw json.RawMessage
		if dec.Decode(&raw) != nil || raw[0] == '[' && !bytes.ContainsAny(bytes.TrimSpace(raw[1:])[:1], "{[\"") {
			miss++
			continue
		}
		plain.WriteString(prompt[last:i] + "\n\n")
		w := walker{text: &text, prose: &prose}
		wd := json.NewDecoder(bytes.NewReader(raw))
		wd.UseNumber() // 1e400 is a number to read as written, not a float64 that overflows
		w.walk(wd, "", "")
		found = true
		i += int(dec.InputOffset()) - 1
		last = i + 1
	}
	plain.WriteString(prompt[last:])
	instruction, input := split(plain.String(), found, system.Len() > 0, names)
	d := &doc{instruction: system.String() + "\n" + instruction}
	d.text = clip(input+"\n\n"+prose.String()+"\n"+text.String(), maxText)
	d.prose = clip(input+"\n\n"+prose.String(), maxText)
	if strings.TrimSpace(d.prose) == "" {
		d.prose = clip(text.String(), maxText) // JSON of short values only: its lines are its text
	}
	d.lower = lowerASCII(d.text)
	return d
}

// jsonStarts reports a '{' or '[' that may open JSON the input is made of: the first thing on its line,
// or after a ':' or '=' ("Classify this: {…}"). A brace in the middle of a sentence is the sentence's.
func jsonStarts(p string, i int) bool {
	for i > 0 && (p[i-1] == ' ' || p[i-1] == '\t' || p[i-1] == '\r') {
		i--
	}
	return i == 0 || strings.IndexByte("\n:=", p[i-1]) >= 0
}

// walker turns JSON into text in the order of its members: each scalar member a "key: value" line (a
// nested one also as "parent key: value"), and each string of words a paragraph of prose, with real
// newlines; a one-word string ("ACME", "open") is a value, not prose.
type walker struct{ text, prose *strings.Builder }

// walk reads one value; it reports false when the decoder fails, which ends the reading, so a
// decoder stuck on an error cannot keep a loop over More going.
func (w walker) walk(dec *json.Decoder, key, parent string) bool {
	tok, err := dec.Token()
	if err != nil {
		return false
	}
	switch t := tok.(type) {
	case json.Delim:
		for dec.More() {
			k := key
			if t == '{' {
				kt, err := dec.Token()
				if err != nil {
					return false
				}
				s, _ := kt.(string)
				k, parent = strings.Join(words(s), " "), key
			}
			if !w.walk(dec, k, parent) {
				return false
			}
		}
		_, err := dec.Token()
		return err == nil
	case string:
		if key == "" || strings.ContainsAny(strings.TrimSpace(t), " \n") {
			w.prose.WriteString(strings.TrimSpace(t) + "\n\n")
		}
		if key != "" && len(t) <= maxValueLen && !strings.ContainsAny(t, "\r\n") {
			w.line(key, parent, t)
		}
	case json.Number, bool:
		if key != "" {
			w.line(key, parent, fmt.Sprint(t))
		}
	}
	return true
}

func (w walker) line(key, parent, value string) {
	w.text.WriteString(key + ": " + value + "\n")
	if parent != "" {
		w.text.WriteString(parent + " " + key + ": " + value + "\n")
	}
}

// clip cuts s to at most n bytes, at a rune's start.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
