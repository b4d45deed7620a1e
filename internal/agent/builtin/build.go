package builtin

import (
	"fmt"
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
	data        string     // the task whose output holds the data so far, for reviews
	dataJSON    bool       // that output is an llm answer with json
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
	b.names[base]++
	if n := b.names[base]; n > 1 {
		return base + "_" + strconv.Itoa(n)
	}
	return base
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
	b.last = []edgeFrom{{source: name}}
	return name
}

func (b *builder) assume(task, param string, value any) {
	if b.assumptions[task] == nil {
		b.assumptions[task] = map[string]any{}
	}
	b.assumptions[task][param] = value
}

var identifier = regexp.MustCompile(`[^a-z0-9]+`)

func fieldName(f string) string {
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

func (b *builder) step(s step) {
	switch s.kind {
	case "extract":
		b.extract(s, false)
	case "classify", "summarize", "translate":
		b.model(s)
	case "review":
		b.review(s)
	case "approve":
		name := b.add("approval", "human_review", s.clause, map[string]any{"instructions": "Approve or reject: " + s.clause})
		b.assume(name, "required_approvals", 1)
	case "post", "fetch":
		b.request(s)
	case "email":
		to := s.to
		params := map[string]any{"subject": "{{ .subject // \"Workflow result\" }}", "body": "{{ . }}"}
		name := b.name("notify")
		b.names["notify"]--
		if len(to) == 0 {
			to = []string{placeholderEmail}
			b.missing = append(b.missing, Missing{Name: name, Type: "email", Missing: []string{"to"}})
		}
		params["to"] = to
		b.add("notify", "email", s.clause, params)
		b.assume(name, "subject", params["subject"])
	case "wait":
		seconds := s.seconds
		name := b.add("wait", "delay", s.clause, map[string]any{"seconds": max(seconds, 1)})
		if seconds == 0 {
			b.tasks[len(b.tasks)-1]["parameters"].(map[string]any)["seconds"] = 3600
			b.assume(name, "seconds", 3600)
		}
	case "sql":
		query := "SELECT * FROM " + orDefault(s.table, "my_table") + " LIMIT 100"
		name := b.add("query", "sql_query", s.clause, map[string]any{"database_id": placeholderUUID, "query": query})
		b.missing = append(b.missing, Missing{Name: name, Type: "sql_query", Missing: []string{"database_id"}})
		b.assume(name, "query", query)
		b.data, b.dataJSON = name, false
	case "transform":
		name := b.add("transform", "transform", s.clause, map[string]any{"expression": "."})
		b.assume(name, "expression", ".")
		b.data, b.dataJSON = name, false
	}
}

// extract is an llm task with a JSON answer holding the fields (and the model's confidence when a
// later review depends on it).
func (b *builder) extract(s step, confidence bool) {
	fields := s.fields
	if len(fields) == 0 {
		fields = []string{"data"}
	}
	props, required := map[string]any{}, []any{}
	for _, f := range fields {
		typ := "string"
		if numeric(f) {
			typ = "number"
		}
		props[fieldName(f)] = map[string]any{"type": typ, "description": "The " + f + "."}
		required = append(required, fieldName(f))
	}
	props["confidence"] = map[string]any{"type": "number", "minimum": 0, "maximum": 1,
		"description": "How sure the extraction is, from 0 to 1."}
	required = append(required, "confidence")
	name := b.add("extract", "llm", s.clause, map[string]any{
		"system":        "You extract data from documents and messages. Answer with JSON only.",
		"prompt":        "Extract the " + strings.Join(fields, ", ") + " from this input, with your confidence from 0 to 1:\n\n{{ . }}",
		"output_schema": map[string]any{"type": "object", "properties": props, "required": required},
		"temperature":   0,
	})
	b.data, b.dataJSON = name, true
}

func (b *builder) model(s step) {
	params := map[string]any{"temperature": 0}
	base := s.kind
	switch s.kind {
	case "classify":
		labels := s.labels
		if len(labels) == 0 {
			labels = []string{"positive", "neutral", "negative"}
		}
		enum := make([]any, len(labels))
		for i, l := range labels {
			enum[i] = l
		}
		params["prompt"] = "Classify this input as one of: " + strings.Join(labels, ", ") + ".\n\n{{ . }}"
		params["output_schema"] = map[string]any{"type": "object", "required": []any{"label", "confidence"},
			"properties": map[string]any{"label": map[string]any{"type": "string", "enum": enum},
				"confidence": map[string]any{"type": "number", "minimum": 0, "maximum": 1}}}
		if len(s.labels) == 0 {
			defer func(n int) { b.assume(b.tasks[n]["name"].(string), "labels", labels) }(len(b.tasks))
		}
		b.dataJSON = true
	case "summarize":
		params["prompt"] = "Summarize this input in a few sentences:\n\n{{ . }}"
		b.dataJSON = false
	case "translate":
		lang := orDefault(s.language, "English")
		params["prompt"] = "Translate this input into " + lang + ":\n\n{{ . }}"
		b.dataJSON = false
	}
	b.data = b.add(base, "llm", s.clause, params)
}

// review puts a person in the loop: always, or only when the model was less sure than the threshold —
// then a condition routes low-confidence answers to the review (its true branch) and the rest straight on
// (its false branch, which passes the data on), and the next task runs after whichever ran.
func (b *builder) review(s step) {
	if b.data == "" {
		// Nothing produced data yet: review the execution's input.
		b.add("review", "human_review", s.clause, map[string]any{"instructions": "Check the input: " + s.clause})
		return
	}
	params := map[string]any{"instructions": "Check the extracted values and correct them if needed.", "review_of": b.data}
	if s.threshold <= 0 || !b.dataJSON {
		if s.threshold > 0 {
			b.assume(b.data, "confidence", "reviewed always: the task before gives no confidence")
		}
		b.add("review", "human_review", s.clause, params)
		return
	}
	check := b.add("check_confidence", "condition", "Is the model less sure than "+fmt.Sprint(s.threshold)+"?",
		map[string]any{"expression": fmt.Sprintf(".json.confidence < %v", s.threshold)})
	review := b.add("review", "human_review", s.clause, params)
	b.last = []edgeFrom{{source: check, branch: new(false)}, {source: review}}
}

func (b *builder) request(s step) {
	url := s.url
	method := "POST"
	if s.kind == "fetch" {
		method = "GET"
	}
	name := b.name(map[string]string{"POST": "post", "GET": "fetch"}[method])
	b.names[map[string]string{"POST": "post", "GET": "fetch"}[method]]--
	if url == "" {
		url = placeholderURL
		b.missing = append(b.missing, Missing{Name: name, Type: "http_request", Missing: []string{"url"}})
	}
	b.add(map[string]string{"POST": "post", "GET": "fetch"}[method], "http_request", s.clause, map[string]any{"url": url, "method": method})
	if method == "GET" {
		b.data, b.dataJSON = name, false
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
