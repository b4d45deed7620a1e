package tasks

import (
	"fmt"
	"slices"
	"strings"
)

// Mismatch compares a list of type names kept outside the registry (the contract's enum, the integrations
// catalog, the documentation) with the registry's, and answers an error naming the types the list lacks
// and the names it holds that are no registered type; nil when both hold the same names. It is what
// keeps those lists from drifting while the registry stays the one place a type is declared.
func (r *Registry) Mismatch(what string, names []string) error {
	var missing, extra []string
	for _, t := range r.types {
		if !slices.Contains(names, t.Name) {
			missing = append(missing, t.Name)
		}
	}
	for _, n := range names {
		if _, ok := r.byName[n]; !ok && !slices.Contains(extra, n) {
			extra = append(extra, n)
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return nil
	}
	var problems []string
	if len(missing) > 0 {
		problems = append(problems, "lacks "+strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		problems = append(problems, "names "+strings.Join(extra, ", ")+", which the registry does not hold")
	}
	return fmt.Errorf("%s differs from the task-type registry (internal/engine/tasks): it %s", what, strings.Join(problems, " and "))
}
