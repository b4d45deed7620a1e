package builtin

import (
	"regexp"
	"slices"
	"strings"
)

// kinds are the words that name a task by what it does, when the request does not use its name.
var kinds = []struct {
	words  []string
	typ    string
	method string
}{
	{[]string{"post", "webhook", "http", "request", "call", "endpoint", "url", "api"}, "http_request", "POST"},
	{[]string{"fetch", "download"}, "http_request", "GET"},
	{[]string{"e-mail", "email", "mail", "notification", "notify", "recipient"}, "email", ""},
	{[]string{"review", "reviewer", "approval", "approve", "human", "person", "manager"}, "human_review", ""},
	{[]string{"wait", "delay", "pause"}, "delay", ""},
	{[]string{"condition", "check", "branch", "threshold", "guard"}, "condition", ""},
	{[]string{"extraction", "extract", "llm", "model", "prompt", "classif", "summar", "translat"}, "llm", ""},
	{[]string{"query", "sql", "database"}, "sql_query", ""},
	{[]string{"transform", "conversion", "convert", "reshape"}, "transform", ""},
}

func wordIn(l, w string) bool {
	return regexp.MustCompile(`(^|[^a-z0-9_])` + regexp.QuoteMeta(w) + `($|[^a-z0-9_])`).MatchString(l)
}

// refer finds the tasks a phrase names: by their names first (longest first, so "post_2" is not
// "post"), else by the kind of task its words say.
func (b *builder) refer(l string) []string {
	var named []string
	rest := l
	byLength := slices.Clone(b.tasks)
	slices.SortStableFunc(byLength, func(x, y map[string]any) int { return len(nameOf(y)) - len(nameOf(x)) })
	for _, t := range byLength {
		n := strings.ToLower(nameOf(t))
		for _, form := range []string{n, words(n)} {
			if wordIn(rest, form) {
				named = append(named, nameOf(t))
				rest = strings.Replace(rest, form, " ", 1)
				break
			}
		}
	}
	if len(named) > 0 {
		return named
	}
	var out []string
	for _, k := range kinds {
		if !slices.ContainsFunc(k.words, func(w string) bool { return strings.Contains(l, w) }) {
			continue
		}
		for _, t := range b.tasks {
			if typeOf(t) != k.typ || slices.Contains(out, nameOf(t)) {
				continue
			}
			if m, _ := params(t)["method"].(string); k.typ == "http_request" && k.method != "" && strings.ToUpper(orDefault(m, "GET")) != k.method {
				if k.method == "POST" && len(b.ofType("http_request")) == 1 && !strings.Contains(l, "post") {
					out = append(out, nameOf(t)) // "the webhook", "the request": the only call there is
				}
				continue
			}
			out = append(out, nameOf(t))
		}
		if len(out) > 0 {
			return out
		}
	}
	return out
}

// ofType are the tasks of a type, in order.
func (b *builder) ofType(typ string) []string {
	var out []string
	for _, t := range b.tasks {
		if typeOf(t) == typ {
			out = append(out, nameOf(t))
		}
	}
	return out
}

// one is the single task a phrase names, asking which when it names several; "" when it names none.
func (e *editor) one(l, what string) string {
	names := e.b.refer(l)
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	e.ask(what, names)
	return ""
}

var tasksRef = regexp.MustCompile(`\$tasks\.([A-Za-z_][A-Za-z0-9_]*)`)

// rewriteRefs changes every $tasks.<name> in the tasks' parameters and the edges' conditions by f
// (f answers the replacement of the whole reference).
func (b *builder) rewriteRefs(f func(name string) string) {
	var walk func(v any) any
	walk = func(v any) any {
		switch v := v.(type) {
		case string:
			return tasksRef.ReplaceAllStringFunc(v, func(m string) string { return f(m[len("$tasks."):]) })
		case map[string]any:
			for k, x := range v {
				v[k] = walk(x)
			}
		case []any:
			for i, x := range v {
				v[i] = walk(x)
			}
		}
		return v
	}
	for _, t := range b.tasks {
		t["parameters"] = walk(params(t))
	}
	for _, e := range b.edges {
		if c, ok := e["condition"].(string); ok {
			e["condition"] = walk(c)
		}
	}
}

// mentions is the kind of task a phrase names by its words ("the POST", "the e-mail"), "" when none.
func mentions(l string) string {
	for _, k := range kinds {
		for _, w := range k.words {
			if wordIn(l, w) || len(w) > 5 && strings.Contains(l, w) {
				return strings.ReplaceAll(k.typ, "_", " ")
			}
		}
	}
	return ""
}

// none answers a clause that names a task the flow does not have: it changes nothing and says so.
func (e *editor) none(what string) bool {
	e.question = "The workflow has no " + what + " to change. Say \"also …\" to add a step, or name a task it has: " +
		strings.Join(e.b.taskNames(), ", ") + "."
	return true
}

// taskNames are the flow's task names in order.
func (b *builder) taskNames() []string {
	var out []string
	for _, t := range b.tasks {
		out = append(out, nameOf(t))
	}
	return out
}
