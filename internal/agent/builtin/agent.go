package builtin

import (
	"fmt"
	"sort"
	"strings"
)

// Proposal is what the agent makes of a request.
type Proposal struct {
	// Definition is a complete flow definition (version, tasks, edges); empty when nothing was understood.
	Definition map[string]any
	// Plan is the request as numbered steps (markdown), for the plan phase.
	Plan string
	// Summary describes the definition in prose (markdown).
	Summary string
	// Assumptions are values the agent chose that the request did not say: task → parameter → value.
	Assumptions map[string]map[string]any
	// Missing are required parameters the request did not give (placeholders stand in the definition).
	Missing []Missing
	// Understood is false when no step of the request was recognised.
	Understood bool
	// Changes are what an edit changed in the definition it started from (nil for a new flow).
	Changes []Change
}

// Propose turns a request into a flow definition.
func Propose(request string) Proposal {
	trig, steps := parse(request)
	b := newBuilder()
	for _, s := range steps {
		b.step(s)
	}
	def := b.definition()
	p := Proposal{Definition: def, Assumptions: b.assumptions, Missing: b.missing, Understood: len(b.tasks) > 0}
	p.Plan = plan(trig, steps)
	p.Summary = Summarize(def)
	if trig != nil {
		p.Summary += "\n" + triggerNote(trig.kind)
	}
	return p
}

func triggerNote(kind string) string {
	switch kind {
	case "email":
		return "To start it from e-mail, create an e-mail task for this flow (`POST /api/email-tasks`): every message " +
			"sent to its address starts an execution with the message (sender, subject, text, attachments) as input."
	case "schedule":
		return "loopwork starts executions on request: have a scheduler call `POST /api/flow-executions` at the times you want."
	}
	return "Start it with `POST /api/flow-executions`, or as the API of a /v1 app whose jobs run it."
}

// plan restates the request as the steps the agent understood.
func plan(trig *trigger, steps []step) string {
	var b strings.Builder
	b.WriteString("Here is the plan:\n\n")
	n := 1
	if trig != nil {
		fmt.Fprintf(&b, "%d. Start %s.\n", n, map[string]string{"email": "when an e-mail arrives", "schedule": "on a schedule",
			"api": "when a request comes in"}[trig.kind])
		n++
	}
	for _, s := range steps {
		fmt.Fprintf(&b, "%d. %s.\n", n, upperFirst(strings.TrimRight(s.clause, ".")))
		n++
	}
	if len(steps) == 0 {
		return "I could not find a step I know how to build in that. Tell me what should happen, for example: " +
			"\"extract the total, send it to review if below 0.9 confidence, then post it to https://example.com/hook\"."
	}
	b.WriteString("\nConfirm the plan and I will build the workflow.")
	return b.String()
}

// Summarize describes a flow definition in prose: its tasks in order, what each does, and how they connect.
func Summarize(def map[string]any) string {
	tasks, _ := def["tasks"].([]any)
	edges, _ := def["edges"].([]any)
	if len(tasks) == 0 {
		return "The workflow has no tasks yet."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The workflow has %d task%s:\n\n", len(tasks), plural(len(tasks)))
	after := map[string][]string{}
	for _, e := range edges {
		e, _ := e.(map[string]any)
		src, _ := e["source"].(string)
		tgt, _ := e["target"].(string)
		if b, ok := e["branch"].(bool); ok {
			src += fmt.Sprintf(" (when it is %t)", b)
		}
		if c, ok := e["condition"].(string); ok && c != "" {
			src += " (when `" + c + "`)"
		}
		after[tgt] = append(after[tgt], src)
	}
	for i, t := range tasks {
		t, _ := t.(map[string]any)
		name, _ := t["name"].(string)
		typ, _ := t["type"].(string)
		fmt.Fprintf(&b, "%d. **%s** (%s): %s", i+1, name, typ, describe(t))
		if a := after[name]; len(a) > 0 {
			sort.Strings(a)
			fmt.Fprintf(&b, " Runs after %s.", strings.Join(a, ", "))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func describe(t map[string]any) string {
	p, _ := t["parameters"].(map[string]any)
	str := func(k string) string { s, _ := p[k].(string); return s }
	switch t["type"] {
	case "llm":
		first := strings.SplitN(str("prompt"), "\n", 2)[0]
		if _, ok := p["output_schema"]; ok {
			return "asks the model: \"" + first + "\" and takes its answer as JSON."
		}
		return "asks the model: \"" + first + "\""
	case "condition":
		return "tests `" + str("expression") + "`."
	case "human_review":
		if r := str("review_of"); r != "" {
			return "a person reviews the output of " + r + "."
		}
		return "a person reviews it."
	case "http_request":
		m := str("method")
		if m == "" {
			m = "GET"
		}
		return "sends " + m + " " + str("url") + "."
	case "email":
		to := fmt.Sprint(p["to"])
		return "e-mails " + strings.Trim(to, "[]") + "."
	case "delay":
		return fmt.Sprintf("waits %v seconds.", p["seconds"])
	case "sql_query":
		return "runs `" + str("query") + "`."
	case "transform":
		return "reshapes the data with `" + str("expression") + "`."
	case "external":
		return "is done by an outside worker."
	}
	return "runs."
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
