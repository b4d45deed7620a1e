package dbx_test

import (
	"testing"

	"github.com/loopwork/loopwork/internal/dbx"
)

func TestWithConnectionDefaults(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"postgres://u@h:5432/db?sslmode=disable":          "postgres://u@h:5432/db?binary_parameters=yes&sslmode=disable",
		"postgres://u@h/db?binary_parameters=no":          "postgres://u@h/db?binary_parameters=no",
		"host=/tmp dbname=x":                              "host=/tmp dbname=x binary_parameters=yes",
		"postgresql://u:p%40ss@h/db?plan_cache_mode=auto": "postgresql://u:p%40ss@h/db?binary_parameters=yes&plan_cache_mode=auto",
	} {
		if got := dbx.WithConnectionDefaults(in); got != want {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
}
