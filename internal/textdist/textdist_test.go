package textdist_test

import (
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/textdist"
)

// TestLevenshteinRunes: distances in characters, worked out by hand, including multi-byte runes that a
// byte-wise comparison would count more than once.
func TestLevenshteinRunes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "abc", 3},
		{"abc", "abc", 0},
		{"kitten", "sitting", 3},
		{"flaw", "lawn", 2},
		{"café", "cafe", 1},
		{"日本語", "日本", 1},
	} {
		if got := textdist.Levenshtein([]rune(c.a), []rune(c.b)); got != c.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := textdist.Levenshtein([]rune(c.b), []rune(c.a)); got != c.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d (the distance is symmetric)", c.b, c.a, got, c.want)
		}
	}
}

// TestLevenshteinWords: the same distance over words, where a changed word costs one however many of
// its characters differ.
func TestLevenshteinWords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"the cat sat", "the cat sat", 0},
		{"the cat sat", "the dog sat", 1},
		{"the cat sat", "the cat", 1},
		{"the cat sat", "a cat sat down", 2},
		{"", "one two", 2},
	} {
		if got := textdist.Levenshtein(strings.Fields(c.a), strings.Fields(c.b)); got != c.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
