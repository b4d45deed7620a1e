package state

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// writes matches a statement that writes one of the engine's tables.
var writes = regexp.MustCompile(`(?i)(UPDATE|INSERT\s+INTO|DELETE\s+FROM)\s+(flow_executions|execution_tasks|task_executions)\b`)

// TestOnlyTheEngineWritesItsTables: no Go code outside internal/engine writes executions, tasks or
// attempts; /api and /v1 call the engine's verbs. The benchmarks' bulk seeding of a million queued
// executions (internal/bench) is the one exception, as setup data, never a path of the product.
func TestOnlyTheEngineWritesItsTables(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(filepath.Join(root, "internal"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && (rel == "internal/engine" || rel == "internal/bench") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range writes.FindAllString(string(src), -1) {
			t.Errorf("%s writes an engine table (%s): call a verb of internal/engine instead", rel, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
