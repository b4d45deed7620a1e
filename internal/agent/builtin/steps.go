package builtin

import (
	"fmt"
	"strings"
)

// Defaults of the outbound calls the agent builds: a call that does not answer in time fails its attempt,
// and a failed attempt is tried again after a pause, so a receiver's short outage loses nothing.
const (
	httpTimeoutSeconds = 30
	httpAttempts       = 3
	httpBackoffSeconds = 10
)

func (b *builder) step(s step) {
	if s.guard != nil && !(s.kind == "review" && s.threshold > 0) {
		b.guarded(s)
		return
	}
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
		b.email(s)
	case "wait":
		seconds := s.seconds
		name := b.add("wait", "delay", s.clause, map[string]any{"seconds": max(seconds, 1)})
		if seconds == 0 {
			params(b.find(name))["seconds"] = 3600
			b.assume(name, "seconds", 3600)
		}
	case "sql":
		query := "SELECT * FROM " + orDefault(s.table, "my_table") + " LIMIT 100"
		name := b.add("query", "sql_query", s.clause, map[string]any{"database_id": placeholderUUID, "query": query})
		b.missing = append(b.missing, Missing{Name: name, Type: "sql_query", Missing: []string{"database_id"}})
		b.assume(name, "query", query)
		b.produced(name, "rows", nil)
	case "transform":
		name := b.add("transform", "transform", s.clause, map[string]any{"expression": "."})
		b.assume(name, "expression", ".")
		b.produced(name, "value", nil)
	}
}

// source is the jq that reads the data so far: the review's corrected output when the review ran, the
// data task's own otherwise ($tasks.review is null when the review was skipped).
func (b *builder) source() string {
	if b.reviewed != "" {
		return "($tasks." + b.reviewed + " // $tasks." + b.data + ")"
	}
	return "$tasks." + b.data
}

// body is what a POST sends: the fields the user asked for, read from the tasks that produced them.
func (b *builder) body() any {
	src := b.source()
	switch {
	case b.data == "":
		return "{{ $input }}"
	case b.dataKind == "json" && len(b.fields) > 0:
		body := map[string]any{}
		for _, f := range b.fields {
			body[f] = "{{ " + src + ".json." + f + " }}"
		}
		return body
	case b.dataKind == "json":
		return "{{ " + src + ".json }}"
	case b.dataKind == "text":
		return map[string]any{"text": "{{ " + src + ".text }}"}
	case b.dataKind == "rows":
		return map[string]any{"rows": "{{ " + src + ".rows }}"}
	case b.dataKind == "body":
		return "{{ " + src + ".body }}"
	}
	return "{{ " + src + " }}"
}

// message is an e-mail's text: the fields one per line, or the text or data as it is.
func (b *builder) message() string {
	src := b.source()
	switch {
	case b.data == "":
		return "{{ $input }}"
	case b.dataKind == "json" && len(b.fields) > 0:
		var lines []string
		for _, f := range b.fields {
			lines = append(lines, strings.ReplaceAll(f, "_", " ")+": {{ "+src+".json."+f+" }}")
		}
		return strings.Join(lines, "\n")
	case b.dataKind == "json":
		return "{{ " + src + ".json }}"
	case b.dataKind == "text":
		return "{{ " + src + ".text }}"
	case b.dataKind == "rows":
		return "{{ " + src + ".rows }}"
	case b.dataKind == "body":
		return "{{ " + src + ".body }}"
	}
	return "{{ " + src + " }}"
}

func (b *builder) email(s step) {
	to := s.to
	subject := `{{ $input.subject? // "Workflow result" }}`
	body := b.message()
	name := b.peek("notify")
	if len(to) == 0 {
		to = []string{placeholderEmail}
		b.missing = append(b.missing, Missing{Name: name, Type: "email", Missing: []string{"to"}})
	}
	b.add("notify", "email", s.clause, map[string]any{"to": to, "subject": subject, "body": body})
	b.assume(name, "subject", subject)
}

func (b *builder) request(s step) {
	method, base := "POST", "post"
	if s.kind == "fetch" {
		method, base = "GET", "fetch"
	}
	url := s.url
	name := b.peek(base)
	if url == "" {
		url = placeholderURL
		b.missing = append(b.missing, Missing{Name: name, Type: "http_request", Missing: []string{"url"}})
	}
	p := map[string]any{"url": url, "method": method, "timeout_seconds": httpTimeoutSeconds}
	if method == "POST" {
		p["body"] = b.body()
	}
	b.add(base, "http_request", s.clause, p)
	retry := map[string]any{"max_attempts": httpAttempts, "backoff_seconds": httpBackoffSeconds}
	b.find(name)["retry"] = retry
	b.assume(name, "timeout_seconds", httpTimeoutSeconds)
	b.assume(name, "retry", retry)
	if method == "GET" {
		b.produced(name, "body", nil)
	}
}

// guarded runs a step only when its guard holds: a condition task whose true branch leads to the step
// and whose false branch goes on to whatever comes next.
func (b *builder) guarded(s step) {
	g := s.guard
	s.guard = nil
	check := b.add("check_"+fieldName(g.field), "condition",
		"Does "+g.text+" hold?", map[string]any{"expression": b.test(g)})
	b.last = []edgeFrom{{source: check, branch: new(true)}}
	b.step(s)
	b.last = append(b.last, edgeFrom{source: check, branch: new(false)})
}

// test is the jq a guard tests: a field of the data so far, or of the execution's input.
func (b *builder) test(g *guard) string {
	subject := "$input." + fieldName(g.field)
	if b.dataKind == "json" {
		subject = b.source() + ".json." + fieldName(g.field)
	}
	return fmt.Sprintf("%s %s %s", subject, g.op, g.value)
}
