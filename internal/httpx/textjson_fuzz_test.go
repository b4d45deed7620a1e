package httpx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// paths lists the place of every value and field name of a JSON document, as TextGuard spells its
// locations, with the strings found there; the tokenizer keeps the members an object repeats.
func paths(doc []byte) map[string][]string {
	out := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(doc))
	var walk func(path []any)
	walk = func(path []any) {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		key := fmt.Sprint(path)
		switch tok {
		case json.Delim('{'):
			out[key] = append(out[key], "")
			for dec.More() {
				name, _ := dec.Token()
				s, _ := name.(string)
				sub := append(append([]any{}, path...), s)
				out[fmt.Sprint(sub)] = append(out[fmt.Sprint(sub)], s)
				walk(sub)
			}
			dec.Token()
		case json.Delim('['):
			out[key] = append(out[key], "")
			for i := 0; dec.More(); i++ {
				walk(append(append([]any{}, path...), i))
			}
			dec.Token()
		default:
			s, _ := tok.(string)
			out[key] = append(out[key], s)
		}
	}
	walk([]any{"body"})
	return out
}

// FuzzScanJSON: for any JSON body, TextGuard's scanner reports a string PostgreSQL would refuse at a
// place the body has, finds one whenever the decoded body holds NUL or a character that stands for
// bytes or escapes that are not text, reports nothing the fast path let through, and stops at 20.
func FuzzScanJSON(f *testing.F) {
	for _, s := range []string{`{"name": "a\u0000b"}`, `{"a": ["x", "\ud800"]}`, `{"\udc00": 1}`, `["\ud83d\ude00", "\\u0000"]`,
		"{\"bad\": \"\xff\"}", `{"a": {"a": "\u0000"}, "a": 1}`, `"\uFFFD \ufffd"`, `[1, true, null, -2.5e3]`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !json.Valid(body) {
			scanJSON(body) // a malformed body reaches the scanner only if the validator let it, but must not panic
			return
		}
		found := scanJSON(body)
		if len(found) > maxTextFindings || (!suspectJSON(body) && len(found) > 0) {
			t.Fatalf("%s: %d findings, fast path %v", body, len(found), suspectJSON(body))
		}
		places := paths(body)
		for _, item := range found {
			if _, ok := places[fmt.Sprint(item.Loc)]; !ok || item.Msg == "" || item.Type != textType {
				t.Fatalf("%s: finding %+v at no place of the body %v", body, item, places)
			}
		}
		// What the decoder makes of the strings: a NUL, or U+FFFD where the body did not write one.
		var texts []string
		for _, list := range places {
			texts = append(texts, list...)
		}
		all := strings.Join(texts, "\n")
		replaced := strings.Contains(all, "\uFFFD") && !bytes.Contains(body, []byte("\uFFFD")) &&
			!bytes.Contains(bytes.ToLower(body), []byte(`\ufffd`))
		bad := strings.Contains(all, "\x00") || replaced || !utf8.Valid(body)
		if bad && len(found) == 0 {
			t.Fatalf("%s decodes to %q, and nothing was found", body, all)
		}
		if len(found) > 0 && !bad && !bytes.Contains(bytes.ToLower(body), []byte(`\ud`)) {
			t.Fatalf("%s: %+v, but its strings %q are fine", body, found, all)
		}
	})
}
