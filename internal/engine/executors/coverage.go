package executors

import (
	"fmt"
	"slices"
	"strings"

	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// Check holds the set to the task-type registry, so that a type is declared in one place and cannot be
// left without its runner: it fails when a registered type has no executor (every task of that type
// would fail when it runs, after the validator accepted the flow), or when an executor runs a type the
// registry does not hold (the validator refuses such a task, so it never runs). outside names the
// registered types whose attempts no executor runs, because outside workers claim them; an executor of
// one of those is an error too, as the engine never calls it.
func (s Set) Check(reg *tasks.Registry, outside ...string) error {
	var missing, extra []string
	for _, name := range reg.Names() {
		_, has := s[name]
		switch {
		case slices.Contains(outside, name) && has:
			extra = append(extra, name+" (run by outside workers)")
		case !slices.Contains(outside, name) && !has:
			missing = append(missing, name)
		}
	}
	for name := range s {
		if _, ok := reg.Lookup(name); !ok {
			extra = append(extra, name)
		}
	}
	for _, name := range outside {
		if _, ok := reg.Lookup(name); !ok {
			extra = append(extra, name+" (named as run outside)")
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return nil
	}
	slices.Sort(extra)
	var problems []string
	if len(missing) > 0 {
		problems = append(problems, "task types without an executor: "+strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		problems = append(problems, "executors of no registered task type: "+strings.Join(extra, ", "))
	}
	return fmt.Errorf("executors and task types differ: %s", strings.Join(problems, "; "))
}
