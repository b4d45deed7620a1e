package testkit

import (
	"fmt"
	"strings"
)

// FirstDifference shows the first line where a committed file and what the code generates for it part,
// so a test that fails on a stale generated file says what drifted rather than only that something did.
// It answers "" when the texts are equal. A line one text lacks shows as (none), so a missing final
// newline or a missing last line is reported too.
func FirstDifference(committed, generated string) string {
	a, b := strings.Split(committed, "\n"), strings.Split(generated, "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		x, y := lineOf(a, i), lineOf(b, i)
		if x != y || (i < len(a)) != (i < len(b)) {
			return fmt.Sprintf("line %d\ncommitted: %s\ngenerated: %s", i+1, x, y)
		}
	}
	return ""
}

func lineOf(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(none)"
}
