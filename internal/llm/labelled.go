package llm

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// hit is a value found after a label: its text, where it is, and the rank of its label among the
// field's (lower is more telling).
type hit struct {
	value      string
	start, end int
	rank       int
}

const (
	maxHits     = 32  // hits kept per label: more tell nothing new and cost time on a long input
	maxValueLen = 200 // a labelled value longer than this is cut at a word
)

// labelled finds every "label: value" of the labels in the text, most telling label first.
func (d *doc) labelled(labels []string) []hit {
	var out []hit
	for rank, label := range labels {
		first := strings.Fields(label)[0]
		n := 0
		for from := 0; n < maxHits; {
			i := strings.Index(d.lower[from:], first)
			if i < 0 {
				break
			}
			i += from
			from = i + 1
			j, ok := matchLabel(d.lower, i, label)
			if !ok || qualified(d.lower, i, label, labels) {
				continue
			}
			quoted := i > 0 && (d.text[i-1] == '"' || d.text[i-1] == '\'')
			if s, e, ok := d.valueAfter(j, quoted, direct(label) || lineStart(d.text, i)); ok {
				out = append(out, hit{value: d.text[s:e], start: s, end: e, rank: rank})
				n++
			}
		}
	}
	return out
}

// direct reports a label that may stand right before its value when the value starts as a number or
// a sum does: "Invoice No. 2041". A label that starts its line may too ("TOTAL 44.00 USD").
func direct(label string) bool {
	f := strings.Fields(label)
	return len(f) > 1 && slices.Contains([]string{"no", "nr", "number", "num"}, f[len(f)-1])
}

// valueAfter reads the value that follows a label ending at j: after a separator (":", "=", "#", " - ",
// or "is"), up to the end of the line, a closing quote, or a column gap; on the next line when the
// label ends its own. It reports false when no separator follows, so a mere mention is no label.
func (d *doc) valueAfter(j int, quoted, direct bool) (int, int, bool) {
	t := d.text
	k := skip(t, j, "\"' \t")
	if k < len(t) && t[k] == '.' {
		k = skip(t, k+1, " \t")
	}
	sep, prose := false, false
	if k < len(t) && t[k] == '#' {
		k, sep = skip(t, k+1, " \t"), true
	}
	switch {
	case k < len(t) && (t[k] == ':' || t[k] == '='):
		k, sep = k+1, true
	case sep:
	case strings.HasPrefix(t[k:], "- ") || strings.HasPrefix(t[k:], "– ") || strings.HasPrefix(t[k:], "— "):
		k, sep = k+strings.IndexByte(t[k:], ' ')+1, true
	case strings.HasPrefix(d.lower[k:], "is ") || strings.HasPrefix(d.lower[k:], "was "):
		k, sep, prose = k+strings.IndexByte(t[k:], ' ')+1, true, true
	case direct && k > j && k < len(t) && startsValue(t[k:]):
		sep = true
	}
	if !sep {
		return 0, 0, false
	}
	k = skip(t, k, " \t")
	if k < len(t) && (t[k] == '\n' || t[k] == '\r') && !prose {
		// The value stands on the next line ("Bill from:\nACME Ltd") unless that line is blank or a label
		// of its own.
		if k = skip(t, k, "\r"); k < len(t) && t[k] == '\n' {
			k++
		}
		k = skip(t, k, "\r \t")
		end := lineEnd(t, k)
		if c := strings.IndexByte(t[k:end], ':'); c >= 0 && c < 40 || k == end {
			return 0, 0, false
		}
	}
	end := lineEnd(t, k)
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"'", "'"}} {
		if strings.HasPrefix(t[k:end], q[0]) {
			s := k + len(q[0])
			if c := strings.Index(t[s:end], q[1]); c >= 0 {
				return trimValue(t, s, s+c)
			}
			return trimValue(t, s, end)
		}
	}
	cuts := []string{"\t", "  ", " | "}
	if quoted {
		cuts = append(cuts, ",", "}")
	}
	if prose {
		cuts = append(cuts, ",", ";", ". ", " and ", " but ")
	}
	for _, c := range cuts {
		if i := strings.Index(t[k:end], c); i >= 0 {
			end = k + i
		}
	}
	return trimValue(t, k, end)
}

// trimValue trims a value's span of spaces, quotes and trailing punctuation, and bounds its length.
func trimValue(t string, s, e int) (int, int, bool) {
	for s < e && strings.IndexByte(" \t\"'", t[s]) >= 0 {
		s++
	}
	for e > s && strings.IndexByte(" \t\r\"',;", t[e-1]) >= 0 {
		e--
	}
	if e > s && t[e-1] == '.' && !abbreviated(t[s:e-1]) {
		e--
	}
	if e-s > maxValueLen {
		e = s + maxValueLen
		if c := strings.LastIndexByte(t[s:e], ' '); c > 0 {
			e = s + c
		}
		for e > s && !utf8.RuneStart(t[e]) {
			e--
		}
	}
	return s, e, e > s
}

// abbreviated reports text ending in an abbreviation whose full stop belongs to it ("ACME Ltd.").
func abbreviated(s string) bool {
	w := s[strings.LastIndexAny(s, " \t")+1:]
	return slices.Contains([]string{"ltd", "inc", "co", "corp", "llc", "plc", "bros", "jr", "sr", "st", "no"}, strings.ToLower(w)) || len(w) == 1
}

func skip(t string, k int, set string) int {
	for k < len(t) && strings.IndexByte(set, t[k]) >= 0 {
		k++
	}
	return k
}

func lineEnd(t string, k int) int {
	if i := strings.IndexAny(t[k:], "\r\n"); i >= 0 {
		return k + i
	}
	return len(t)
}

// lineStart reports i as the first non-blank of its line.
func lineStart(t string, i int) bool {
	for i > 0 && (t[i-1] == ' ' || t[i-1] == '\t') {
		i--
	}
	return i == 0 || t[i-1] == '\n' || t[i-1] == '\r'
}

// startsValue reports text that opens with a digit, a sign of a sum or a number, or a currency code.
func startsValue(t string) bool {
	if t == "" {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(t); isDigit(t[0]) || strings.ContainsRune("€$£¥₹+#(", r) {
		return true
	}
	m := currencyRe.FindStringIndex(clip(t, 4))
	return m != nil && m[0] == 0
}
