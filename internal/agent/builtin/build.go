package builtin

import (
	"regexp"
	"strconv"
	"strings"
)

// Placeholders stand where the request did not say a value: the definition still validates, and the
// parameter is listed as missing, for the user to fill in.
const (
	placeholderURL   = "https://example.com/replace-me"
	placeholderEmail = "someone@example.com"
	placeholderUUID  = "00000000-0000-0000-0000-000000000000"
)

// Missing is a task whose required parameters the request did not give.
type Missing struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Missing []string `json:"missing"`
}

// builder lays out tasks in order; each new task runs after what came before it.
type builder struct {
	tasks       []map[string]any
	edges       []map[string]any
	names       map[string]int
	last        []edgeFrom // what the next task runs after
	data        string     // the task whose output holds the data so far, for reviews and bodies
	dataKind    string     // what that output is: json (an llm answer with a schema), text, rows, body or value
	fields      []string   // the fields of a json answer, which bodies and messages name
	reviewed    string     // the review of data: its corrected output stands in for data when it ran
	assumptions map[string]map[string]any
	missing     []Missing
}

// edgeFrom is an edge into the next task: from source, with a condition, or (out of a condition task)
// following the branch its result names.
type edgeFrom struct {
	source, condition string
	branch            *bool
}

func newBuilder() *builder {
	return &builder{names: map[string]int{}, assumptions: map[string]map[string]any{}}
}

func (b *builder) name(base string) string {
	for {
		b.names[base]++
		n := base
		if c := b.names[base]; c > 1 {
			n = base + "_" + strconv.Itoa(c)
		}
		if b.find(n) == nil {
			return n
		}
	}
}

// peek is the name the next task of that base gets, without taking it.
func (b *builder) peek(base string) string {
	saved := b.names[base]
	n := b.name(base)
	b.names[base] = saved
	return n
}

// add appends a task after the current ones and makes it the current one.
func (b *builder) add(base, typ, description string, params map[string]any) string {
	name := b.name(base)
	b.tasks = append(b.tasks, map[string]any{"name": name, "type": typ, "parameters": params, "description": description})
	for _, from := range b.last {
		e := map[string]any{"source": from.source, "target": name}
		if from.condition != "" {
			e["condition"] = from.condition
		}
		if from.branch != nil {
			e["branch"] = *from.branch
		}
		b.edges = append(b.edges, e)
	}
	b.last = []edgeFrom{b.after(name)}
	return name
}

// produced makes a task the one whose output holds the data from here on.
func (b *builder) produced(name, kind string, fields []string) {
	b.data, b.dataKind, b.fields, b.reviewed = name, kind, fields, ""
}

func (b *builder) assume(task, param string, value any) {
	if b.assumptions[task] == nil {
		b.assumptions[task] = map[string]any{}
	}
	b.assumptions[task][param] = value
}

var identifier = regexp.MustCompile(`[^a-z0-9]+`)

func fieldName(f string) string {
	f = strings.NewReplacer("'s ", " ", "’s ", " ").Replace(f)
	n := strings.Trim(identifier.ReplaceAllString(strings.ToLower(f), "_"), "_")
	if n == "" || n[0] >= '0' && n[0] <= '9' {
		n = "field_" + n
	}
	return n
}

// numeric guesses which fields are numbers from their names.
func numeric(f string) bool {
	return has(f, "total", "amount", "price", "sum", "cost", "count", "number of", "quantity", "score", "age", "tax", "balance")
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
