package tracing

import "testing"

// TestOperation: statement spans are named by the statement's first keyword, past the comments the
// code base puts in front of some (dbx.CustomPlan), so that span names stay few.
func TestOperation(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"SELECT 1":                                 "SELECT",
		"\n\t  update jobs SET x = $1":             "UPDATE",
		"/* custom plan */ SELECT * FROM jobs":     "SELECT",
		"-- why\n/* custom plan */\nWITH a AS (…)": "WITH",
		"":                            "postgresql",
		"/* never closed":             "postgresql",
		"-- only a comment":           "postgresql",
		"(SELECT 1) UNION (SELECT 2)": "postgresql",
	} {
		if got := operation(q); got != want {
			t.Errorf("operation(%q) = %q, want %q", q, got, want)
		}
	}
}
