package builtin

import (
	"regexp"
	"slices"
	"strings"
)

var (
	positionRe = regexp.MustCompile(`(?i)\s*,?\s*\b(before|after)\s+(.{2,80}?)\s*$`)
	leadingAdd = regexp.MustCompile(`(?i)^(?:and\s+)?(?:also|then|additionally|afterwards|finally|add a step (?:that|to)|add)\s+`)
	alsoFields = regexp.MustCompile(`(?i)^(?:and\s+)?(?:also\s+)?(?:extract|pull out|capture|read)\s+(?:the\s+)?(.+?)(?:\s+too|\s+as well)?$`)
)

// add puts the clause's step into the flow: before or after the task the clause names, a review right
// after the data it reviews, anything else at the end.
func (e *editor) add(clause, l string) bool {
	b := e.b
	anchor, where := "", ""
	if m := positionRe.FindStringSubmatch(clause); m != nil {
		if names := b.refer(strings.ToLower(m[2])); len(names) == 1 {
			anchor, where = names[0], strings.ToLower(m[1])
			clause = strings.TrimSpace(clause[:len(clause)-len(m[0])])
		}
	}
	clause = leadingAdd.ReplaceAllString(clause, "")
	if t := triggerOf(strings.ToLower(clause)); t != "" {
		return false
	}
	s, ok := stepOf(clause, strings.ToLower(clause))
	if !ok {
		return false
	}
	if anchor == "" && (s.kind == "review" || s.kind == "approve") {
		if d := b.dataBefore(""); d != "" && len(b.out(d)) > 0 {
			anchor, where = d, "after"
		}
	}
	n := len(b.tasks)
	switch where {
	case "before":
		b.dataAt(b.upstream(anchor))
		b.last = from(b.into(anchor))
		b.dropEdges(func(x map[string]any) bool { return x["target"] == anchor })
		b.step(s)
		b.connect(anchor)
		b.moveBefore(n, anchor)
	case "after":
		up := b.upstream(anchor)
		up[anchor] = true
		b.dataAt(up)
		outs := b.out(anchor)
		b.dropEdges(func(x map[string]any) bool { return x["source"] == anchor })
		b.last = []edgeFrom{b.after(anchor)}
		b.step(s)
		for _, o := range outs {
			b.connect(o["target"].(string))
		}
		if i := b.index(anchor); i+1 < n {
			b.moveBefore(n, nameOf(b.tasks[i+1]))
		}
	default:
		all := map[string]bool{}
		for _, t := range b.tasks {
			all[nameOf(t)] = true
		}
		b.dataAt(all)
		b.last = b.sinks()
		b.step(s)
	}
	b.last = nil
	if s.kind == "review" && b.reviewed != "" && b.data != "" {
		b.preferReviewed(b.reviewed, b.data)
	}
	return len(b.tasks) > n
}

// dataAt sets what the data is at a point of the flow from the tasks upstream of it: the last of them
// (in the flow's order) whose output is data, and the review of it, if one is upstream too.
func (b *builder) dataAt(upstream map[string]bool) {
	b.produced("", "", nil)
	for _, t := range b.tasks {
		name := nameOf(t)
		if !upstream[name] {
			continue
		}
		p := params(t)
		switch typeOf(t) {
		case "llm":
			if schema, ok := p["output_schema"].(map[string]any); ok {
				props, _ := schema["properties"].(map[string]any)
				var fields []string
				for _, r := range requiredOf(schema, props) {
					if r != "confidence" || len(props) == 1 {
						fields = append(fields, r)
					}
				}
				b.produced(name, "json", fields)
			} else {
				b.produced(name, "text", nil)
			}
		case "sql_query":
			b.produced(name, "rows", nil)
		case "transform":
			b.produced(name, "value", nil)
		case "http_request":
			if m, _ := p["method"].(string); m == "" || strings.EqualFold(m, "GET") {
				b.produced(name, "body", nil)
			}
		case "human_review":
			if p["review_of"] == b.data && b.data != "" {
				b.reviewed = name
			}
		}
	}
}

// requiredOf lists a schema's fields: its required ones in order, then the rest by name.
func requiredOf(schema, props map[string]any) []string {
	var out []string
	req, _ := schema["required"].([]any)
	for _, r := range req {
		if s, ok := r.(string); ok {
			out = append(out, s)
		}
	}
	var rest []string
	for k := range props {
		if !slices.Contains(out, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// dataBefore is the data task upstream of name (of the whole flow when name is "").
func (b *builder) dataBefore(name string) string {
	up := map[string]bool{}
	if name == "" {
		for _, t := range b.tasks {
			up[nameOf(t)] = true
		}
	} else {
		up = b.upstream(name)
	}
	saved := []any{b.data, b.dataKind, b.fields, b.reviewed}
	b.dataAt(up)
	d := b.data
	b.data, b.dataKind, b.fields, b.reviewed = saved[0].(string), saved[1].(string), saved[2].([]string), saved[3].(string)
	return d
}

// guardExisting makes a task the flow has run only when a guard holds ("only notify if the count is
// above 10"): a condition before it, whose true branch leads to it.
func (e *editor) guardExisting(clause, l string) bool {
	g := guardOf(clause)
	if g == nil || !strings.Contains(l, "only") || addIntent.MatchString(l) {
		return false
	}
	target := e.one(strings.Replace(l, strings.ToLower(g.text), " ", 1), "task")
	if target == "" {
		return e.question != ""
	}
	b, n := e.b, len(e.b.tasks)
	b.dataAt(b.upstream(target))
	b.last = from(b.into(target))
	b.dropEdges(func(x map[string]any) bool { return x["target"] == target })
	check := b.add("check_"+fieldName(g.field), "condition", "Does "+g.text+" hold?", map[string]any{"expression": b.test(g)})
	b.last = []edgeFrom{{source: check, branch: new(true)}}
	b.connect(target)
	b.moveBefore(n, target)
	b.last = nil
	return true
}
