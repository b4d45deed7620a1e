package llm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	summarySentences = 3   // a summary is the input's first sentences, this many at most
	summaryLen       = 300 // and this many bytes at most
	answerLen        = 500 // any other text answer is the input, this many bytes at most
)

// textAnswer answers a prompt without a schema from its input, never its instruction: asked to
// summarise, the input's first sentences; otherwise the input itself, shortened. It cannot translate,
// rewrite or reason; it can only hand back what it was given.
func textAnswer(d *doc) string {
	if wantsSummary(d.instruction) {
		return summary(d.prose)
	}
	return shorten(strings.TrimSpace(d.prose), answerLen)
}

func wantsSummary(instruction string) bool {
	l := strings.ToLower(instruction)
	for _, w := range []string{"summar", "tl;dr", "tldr", "gist", "in brief", "briefly", "key points", "in short"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// summary is text's first sentences, up to summarySentences and summaryLen; a paragraph ends a sentence,
// and a first sentence longer than summaryLen is cut at a word.
func summary(text string) string {
	var sentences []string
	for _, p := range paragraphs(text) {
		for flat := strings.Join(strings.Fields(p), " "); flat != "" && len(sentences) < summarySentences; {
			var s string
			s, flat = sentence(flat)
			if !strings.ContainsAny(s[len(s)-1:], ".!?:…") {
				s += "." // a heading or a line without its full stop, ended so the next does not run on
			}
			sentences = append(sentences, s)
		}
	}
	out := ""
	for _, s := range sentences {
		next := strings.TrimSpace(out + " " + s)
		if len(next) > summaryLen {
			if out == "" {
				out = shorten(s, summaryLen)
			}
			break
		}
		out = next
	}
	return out
}

// sentence cuts text after its first sentence: at '.', '!' or '?' followed by a space and a capital
// letter, a digit or a quote, except after a short abbreviation ("e.g.", "Mr.").
func sentence(text string) (string, string) {
	for i := 0; i < len(text); i++ {
		if c := text[i]; c != '.' && c != '!' && c != '?' || i+2 >= len(text) || text[i+1] != ' ' {
			continue
		}
		r, _ := utf8.DecodeRuneInString(text[i+2:])
		word := text[strings.LastIndexByte(text[:i], ' ')+1 : i]
		if text[i] == '.' && (len(word) <= 2 && word != "" && !unicode.IsDigit(rune(word[0])) || strings.Contains(word, ".")) {
			continue
		}
		if unicode.IsUpper(r) || unicode.IsDigit(r) || strings.ContainsRune("\"'“(", r) {
			return text[:i+1], text[i+2:]
		}
	}
	return text, ""
}

// shorten cuts text to at most n bytes at a word, marking the cut with "…".
func shorten(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := clip(text, n-len("…"))
	if i := strings.LastIndexAny(cut, " \n\t"); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:\n\t") + "…"
}
