package testkit

import "testing"

func TestFirstDifference(t *testing.T) {
	for _, c := range []struct{ committed, generated, want string }{
		{"a\nb\n", "a\nb\n", ""},
		{"a\nb\nc\n", "a\nB\nc\n", "line 2\ncommitted: b\ngenerated: B"},
		{"a\n", "a\nb\n", "line 2\ncommitted: \ngenerated: b"},
		{"a\n", "a", "line 2\ncommitted: \ngenerated: (none)"},
	} {
		if got := FirstDifference(c.committed, c.generated); got != c.want {
			t.Errorf("FirstDifference(%q, %q) = %q, want %q", c.committed, c.generated, got, c.want)
		}
	}
}
