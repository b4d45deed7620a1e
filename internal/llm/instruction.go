package llm

import (
	"slices"
	"strings"
)

// verbs open an instruction: "Extract the vendor…", "Classify this ticket…", "Summarise:".
var verbs = []string{"extract", "read", "summarise", "summarize", "classify", "categorise", "categorize", "translate",
	"answer", "return", "identify", "determine", "rate", "rewrite", "respond", "describe", "explain", "parse",
	"output", "provide", "fill", "detect", "label", "analyse", "analyze", "convert", "list", "give", "tell",
	"write", "get", "pull", "find", "decide", "judge", "assess", "score", "tag", "use"}

// cues tell an instruction paragraph by what it talks about rather than what it is.
var cues = []string{"json", "your confidence", "the following", "below", "above", "as follows"}

// split tells a prompt's instruction from its input, in the prompt's text with its JSON taken out
// (hasJSON says there was some, which is input). It drops, as instruction:
//   - leading paragraphs (blank-line separated) that end with ':', open with an instruction verb, talk
//     about JSON, confidence or "the following", or name two or more of the schema's fields or values
//     without labelling them, as long as some input follows;
//   - a last one-line paragraph that opens with a verb or speaks of "above" ("Summarise the above.");
//   - the first line of what is left when it opens with a verb and more follows, or its head up to a
//     ':' that reads as an instruction ("Vendor, total and confidence of: …") rather than a label;
//   - a prompt that is one line opening with a verb, with no system message: a question with no input.
func split(plain string, hasJSON, hasSystem bool, names []string) (string, string) {
	paras := paragraphs(plain)
	var instr []string
	for len(paras) > 0 && (len(paras) > 1 || hasJSON) && instructive(paras[0], names) {
		instr, paras = append(instr, paras[0]), paras[1:]
	}
	if len(paras) > 0 && len(instr) == 0 {
		line, rest, more := strings.Cut(paras[0], "\n")
		more = more || len(paras) > 1 || hasJSON
		head, tail, colon := strings.Cut(line, ":")
		switch {
		case colon && instructiveHead(head) && (strings.TrimSpace(tail) != "" || more):
			instr = append(instr, head+":")
			paras[0] = strings.TrimSpace(strings.TrimSpace(tail) + "\n" + rest)
		case opensWithVerb(line) && (more || !hasSystem):
			instr = append(instr, line)
			paras[0] = rest
		}
	}
	if n := len(paras); n > 1 && !strings.Contains(paras[n-1], "\n") &&
		(opensWithVerb(paras[n-1]) || strings.Contains(strings.ToLower(paras[n-1]), "above")) {
		instr, paras = append(instr, paras[n-1]), paras[:n-1]
	}
	return strings.Join(instr, "\n"), strings.Join(paras, "\n\n")
}

// paragraphs splits text at blank lines, trimming each paragraph.
func paragraphs(text string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) == "" {
			flush()
		} else {
			cur = append(cur, l)
		}
	}
	flush()
	return out
}

func instructive(p string, names []string) bool {
	lower := lowerASCII(p)
	if strings.HasSuffix(p, ":") || opensWithVerb(p) || slices.ContainsFunc(cues, func(c string) bool { return strings.Contains(lower, c) }) {
		return true
	}
	named := 0
	for _, n := range names {
		if mentions(lower, n) {
			named++
		}
	}
	return named >= 2
}

// mentions reports name (lower-case words) as words of lower, other than as a label ("Total: 5").
func mentions(lower, name string) bool {
	first := strings.Fields(name)
	if len(first) == 0 {
		return false
	}
	for from := 0; ; {
		i := strings.Index(lower[from:], first[0])
		if i < 0 {
			return false
		}
		i += from
		from = i + 1
		if j, ok := matchLabel(lower, i, name); ok {
			if k := skip(lower, j, " \t\"'"); k >= len(lower) || strings.IndexByte(":=#", lower[k]) < 0 {
				return true
			}
		}
	}
}

// opensWithVerb reports text whose first word (after "please") is an instruction verb, or that speaks
// to the model ("You are…", "Your task…").
func opensWithVerb(s string) bool {
	f := strings.Fields(strings.ToLower(s))
	if len(f) > 0 && (f[0] == "please" || f[0] == "kindly" || f[0] == "now") {
		f = f[1:]
	}
	if len(f) == 0 {
		return false
	}
	w := strings.Trim(f[0], ",.:;!")
	return slices.Contains(verbs, w) || len(f) > 1 && (w == "you" && f[1] == "are" || w == "your" && f[1] == "task")
}

// instructiveHead reports the text before a line's ':' as an instruction rather than a label: it opens
// with a verb, or it has four or more words among which a preposition or article (a label such as
// "Total amount due incl VAT" has none), or it ends with one of the words that point at the input.
func instructiveHead(h string) bool {
	f := strings.Fields(strings.ToLower(h))
	if opensWithVerb(h) {
		return true
	}
	glue := []string{"of", "from", "in", "the", "this", "these", "with", "and", "for", "about", "below"}
	if len(f) >= 4 && slices.ContainsFunc(f, func(w string) bool { return slices.Contains(glue, strings.Trim(w, ",.;")) }) {
		return true
	}
	return len(f) >= 3 && slices.Contains([]string{"of", "in", "on", "for", "about", "below", "following", "text",
		"input", "document", "message", "email", "this", "these"}, f[len(f)-1])
}
