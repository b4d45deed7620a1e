package csvsniff

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Delimiters are the delimiters Detect chooses among, in the order it prefers them on a tie.
var Delimiters = []byte{',', ';', '\t', '|'}

// Detect picks the delimiter of a file from its beginning: the candidate that appears (outside quotes)
// the same number of times on every one of the first lines wins, the most frequent first; failing
// that, the one on the most lines; a comma when none appears.
func Detect(head []byte) byte {
	head = bytes.TrimPrefix(head, bom)
	var lines [][4]int
	var cur [4]int
	inQuote, content := false, false
scan:
	for _, c := range head {
		switch c {
		case '"':
			inQuote = !inQuote
		case '\n':
			if !inQuote {
				if content {
					lines = append(lines, cur)
				}
				cur, content = [4]int{}, false
				if len(lines) == 20 {
					break scan
				}
				continue
			}
		}
		if c != '\r' && c != '\n' {
			content = true
		}
		if !inQuote {
			if i := bytes.IndexByte(Delimiters, c); i >= 0 {
				cur[i]++
			}
		}
	}
	if content && !inQuote && len(lines) < 20 {
		lines = append(lines, cur)
	}
	best, bestCount := -1, 0
	for i := range Delimiters {
		n := lines0(lines, i)
		if n > 0 && consistent(lines, i) && n > bestCount {
			best, bestCount = i, n
		}
	}
	if best >= 0 {
		return Delimiters[best]
	}
	bestLines := 0
	for i := range Delimiters {
		on := 0
		for _, l := range lines {
			if l[i] > 0 {
				on++
			}
		}
		if on > bestLines {
			best, bestLines = i, on
		}
	}
	if best >= 0 {
		return Delimiters[best]
	}
	return ','
}

func lines0(lines [][4]int, i int) int {
	if len(lines) == 0 {
		return 0
	}
	return lines[0][i]
}

func consistent(lines [][4]int, i int) bool {
	for _, l := range lines {
		if l[i] != lines[0][i] {
			return false
		}
	}
	return true
}

// Columns turns a header row into table column names: trimmed, a blank one named column_<n>, each at
// most 63 bytes (PostgreSQL's limit), and a repeated one suffixed _2, _3 … so that all are distinct.
func Columns(header []string) []string {
	out := make([]string, len(header))
	seen := make(map[string]bool, len(header))
	for i, h := range header {
		name := truncate(strings.TrimSpace(h), 63)
		if name == "" {
			name = fmt.Sprintf("column_%d", i+1)
		}
		base := name
		for n := 2; seen[name]; n++ {
			suffix := fmt.Sprintf("_%d", n)
			name = truncate(base, 63-len(suffix)) + suffix
		}
		seen[name] = true
		out[i] = name
	}
	return out
}

// Numbered is column_1 … column_n, the names of a file without a header row.
func Numbered(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("column_%d", i+1)
	}
	return out
}

func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}
