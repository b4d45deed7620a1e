// Package textdist is the edit distance behind both the measurer's text similarity (over characters) and
// the speech tests' word error rate (over words): one algorithm over a different element, so it is
// written once here, generic over the element.
package textdist

// Levenshtein is the number of single-element insertions, deletions and substitutions that turn a into
// b. Elements are compared with ==, so a caller decides what counts as equal (runes for characters,
// lower-cased words for transcripts) by what it passes in.
func Levenshtein[T comparable](a, b []T) int {
	// Only the previous row of the table is needed for the next one, so two rows of len(b)+1 are kept
	// instead of the whole len(a)+1 by len(b)+1 table.
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
