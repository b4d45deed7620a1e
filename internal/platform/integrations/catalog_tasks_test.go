package integrations

import (
	"testing"

	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// TestCatalogHoldsEveryTaskType fails when a built-in task type has no catalog entry, or an entry shown
// as a task type is no registered type: the catalog follows the registry, it does not declare types.
func TestCatalogHoldsEveryTaskType(t *testing.T) {
	t.Parallel()
	reg := tasks.Builtin()
	var names []string
	for _, e := range taskEntries {
		names = append(names, e.name)
	}
	if err := reg.Mismatch("the integrations catalog's list of task types", names); err != nil {
		t.Fatal(err)
	}
	for _, e := range serviceEntries {
		if _, ok := reg.Lookup(e.name); ok {
			t.Errorf("catalog entry %s is a task type: it belongs among the task entries", e.name)
		}
	}
}
