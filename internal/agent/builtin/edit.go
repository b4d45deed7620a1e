package builtin

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Change is one difference between the definition a proposal starts from and the one it proposes.
type Change struct {
	// Op is added, removed, renamed, changed or moved.
	Op string `json:"op"`
	// Task is the task's name in the proposal (its old name when it was removed).
	Task string `json:"task"`
	// Detail says what changed, in prose.
	Detail string `json:"detail"`
}

// maxEditTasks is the largest flow the built-in agent edits.
const maxEditTasks = 300

// editor applies a request's clauses, one edit each, to a builder seeded with the current definition.
type editor struct {
	b *builder
	// renamed maps a task's new name to the name it had.
	renamed map[string]string
	// moved are the tasks the request moved.
	moved map[string]bool
	// done are the clauses understood, as the plan lists them; question is asked instead of proposing
	// when a clause names a task ambiguously.
	done     []string
	question string
}

// Edit changes the current definition as the request asks. Tasks and parameters the request does not
// touch are kept as they are; each clause of the request is one edit (add, remove, rename or move a task,
// change a parameter, a retry, a timeout, a review or a branch). With no current tasks it is Propose.
// When a clause names more than one task it could mean, nothing is changed and the proposal's Plan asks
// which one (Understood is false).
func Edit(current map[string]any, request string) Proposal {
	if len(tasksOf(current)) == 0 {
		return Propose(request)
	}
	// The editor walks edges task by task, so its work grows with the square of a flow's size: past
	// maxEditTasks a tenant's definition could hold a server core for minutes.
	if n := len(tasksOf(current)); n > maxEditTasks {
		return Proposal{Definition: current, Plan: fmt.Sprintf("The workflow has %d tasks; the built-in agent edits "+
			"workflows of up to %d. Change this one through the flow's definition (`PUT /api/flows/{id}/definition`), or "+
			"configure a model for the agent.", n, maxEditTasks)}
	}
	e := &editor{b: builderFrom(current), renamed: map[string]string{}, moved: map[string]bool{}}
	for _, clause := range editClauses(request) {
		if clause = strings.TrimSpace(clause); clause != "" && e.question == "" {
			if e.apply(clause) {
				e.done = append(e.done, clause)
			}
		}
	}
	switch {
	case e.question != "":
		return Proposal{Definition: current, Plan: e.question}
	case len(e.done) == 0:
		return Proposal{Definition: current, Plan: "I could not tell what to change in the workflow. Say it as, for " +
			"example, \"post it to https://… instead\", \"also e-mail ap@example.com\", \"retry the POST 3 times\", " +
			"\"remove the review\", \"rename extract to read_invoice\" or \"send it to review if below 0.8 confidence\"."}
	}
	def := e.b.definition()
	changes := diff(current, def, e.renamed, e.moved)
	if len(changes) == 0 {
		return Proposal{Definition: current, Plan: "The workflow already does that: nothing changes.\n\n" + Summarize(current)}
	}
	p := Proposal{Definition: def, Assumptions: e.b.assumptions, Missing: placeholders(def), Understood: true, Changes: changes}
	var plan strings.Builder
	plan.WriteString("Here is what I will change:\n\n")
	for i, c := range e.done {
		fmt.Fprintf(&plan, "%d. %s.\n", i+1, upperFirst(strings.TrimRight(c, ".")))
	}
	p.Plan = plan.String()
	p.Summary = describeChanges(changes) + "\n" + Summarize(def)
	return p
}

// Revise proposes again after the user rejected a definition, changing it as their reason says.
func Revise(rejected map[string]any, reason string) Proposal {
	return Edit(rejected, reason)
}

func tasksOf(def map[string]any) []any {
	t, _ := def["tasks"].([]any)
	return t
}

var editVerbs = regexp.MustCompile(`(?i)\s+(?:and|but)\s+(?:also\s+)?(retry|remove|delete|drop|rename|move|change|set|replace|use|swap|add|skip|don'?t|make|require|time\s*out|wait|send|post|e-?mail|notify|review|have|extract|put)\b`)

// editClauses splits an edit request at sentence ends, "then", and "and" before an edit's verb.
// Quoted text (a new prompt, a subject) is never split.
func editClauses(request string) []string {
	var quoted []string
	masked := quotedRe.ReplaceAllStringFunc(request, func(q string) string {
		quoted = append(quoted, q)
		return "\x01" + strconv.Itoa(len(quoted)-1) + "\x01"
	})
	unmask := regexp.MustCompile("\x01(\\d+)\x01")
	var out []string
	for _, c := range joinGuards(clauses(masked)) {
		for _, part := range strings.Split(editVerbs.ReplaceAllString(c, "\x00$1"), "\x00") {
			out = append(out, unmask.ReplaceAllStringFunc(part, func(m string) string {
				i, _ := strconv.Atoi(strings.Trim(m, "\x01"))
				return quoted[i]
			}))
		}
	}
	return out
}

// apply makes one clause's edit; false when the clause asks for nothing the editor knows.
func (e *editor) apply(clause string) bool {
	l := strings.ToLower(clause)
	for _, edit := range []func(clause, l string) bool{e.rename, e.remove, e.move, e.policy, e.alsoExtract,
		e.threshold, e.guardExisting, e.setParam} {
		if edit(clause, l) {
			return true
		}
	}
	return e.add(clause, l)
}

// ask stops the edit with a question about which of the tasks a phrase means.
func (e *editor) ask(what string, names []string) {
	e.question = fmt.Sprintf("Which %s do you mean: %s? Name it and I will change only that one.", what,
		strings.Join(names, " or "))
}

// placeholders are the parameters a definition still holds a placeholder for.
func placeholders(def map[string]any) []Missing {
	var out []Missing
	tasks, _ := copyDefinition(def)
	for _, t := range tasks {
		p := params(t)
		var miss []string
		switch {
		case typeOf(t) == "http_request" && p["url"] == placeholderURL:
			miss = []string{"url"}
		case typeOf(t) == "email" && strings.Contains(fmt.Sprint(p["to"]), placeholderEmail):
			miss = []string{"to"}
		case typeOf(t) == "sql_query" && p["database_id"] == placeholderUUID:
			miss = []string{"database_id"}
		}
		if miss != nil {
			out = append(out, Missing{Name: nameOf(t), Type: typeOf(t), Missing: miss})
		}
	}
	return out
}
