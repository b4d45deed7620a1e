package dbx_test

import (
	"testing"

	"github.com/loopwork/loopwork/internal/dbx"
)

func TestWithBinaryParameters(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"postgres://u@h:5432/db?sslmode=disable": "postgres://u@h:5432/db?binary_parameters=yes&sslmode=disable",
		"postgres://u@h/db?binary_parameters=no": "postgres://u@h/db?binary_parameters=no",
		"host=/tmp dbname=x":                     "host=/tmp dbname=x binary_parameters=yes",
		"postgresql://u:p%40ss@h/db":             "postgresql://u:p%40ss@h/db?binary_parameters=yes",
	} {
		if got := dbx.WithBinaryParameters(in); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}
