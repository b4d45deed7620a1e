package exports

import (
	"strings"
	"time"
)

// Options are the file options of an export, as its request gave them.
type Options struct {
	CSV           bool     `json:"csv"`
	Flatten       bool     `json:"flattenedOutput"`
	WithFeedback  bool     `json:"withFeedback"`
	WithHistory   bool     `json:"withHistory"`
	FlattenTables bool     `json:"flattenTables"`
	NoHeader      bool     `json:"excludeHeaderRow"`
	QuoteAll      bool     `json:"quoteValues"`
	Postfixes     []string `json:"annotationPostfixKeys,omitempty"`
	// Delimiter is comma, semicolon or pipe, by name or as the character itself.
	Delimiter string `json:"fieldDelimiter"`
}

func (o Options) delimiter() byte {
	switch o.Delimiter {
	case "semicolon", ";":
		return ';'
	case "pipe", "|":
		return '|'
	}
	return ','
}

// job is one job as the export query reads it.
type job struct {
	ID      int64
	Status  string
	BatchID *string
	// Tags and FeedbackTag are JSON arrays of strings, as PostgreSQL's array_to_json writes them.
	Tags        []byte
	CreatedAt   time.Time
	CompletedAt *time.Time
	Score       *float64
	TrustScore  *float64
	Correct     *bool
	Reviewed    *string
	Edited      bool
	Relabeled   bool
	Error       *string
	Metadata    []byte
	Input       []byte
	Response    []byte
	FeedbackTag []byte
	Feedback    []byte
	History     []byte
}

// fixed are the columns every row starts with, in this order.
var fixed = []string{"id", "status", "batch_id", "tags", "created_at", "completed_at", "score", "trust_score",
	"correct", "reviewed", "edited", "relabeled", "error", "metadata"}

// records turns a job into its rows: one, or one per element of the response's table with
// flattenTables.
func (o Options) records(j job) ([]object, error) {
	head := object{{"id", j.ID}, {"status", j.Status}, {"batch_id", j.BatchID}, {"tags", rawOrNil(j.Tags)},
		{"created_at", j.CreatedAt.UTC().Format(time.RFC3339Nano)}, {"completed_at", timeOrNil(j.CompletedAt)},
		{"score", j.Score}, {"trust_score", j.TrustScore}, {"correct", j.Correct}, {"reviewed", j.Reviewed},
		{"edited", j.Edited}, {"relabeled", j.Relabeled}, {"error", j.Error}}
	head = append(head, kv{"metadata", rawOrNil(j.Metadata)})
	// JSON is decoded only where an option reshapes it; otherwise it passes through as it is.
	var input, response any = rawOrNil(j.Input), rawOrNil(j.Response)
	var err error
	if o.Flatten {
		if input, err = decodeOrNil(j.Input); err != nil {
			return nil, err
		}
	}
	if o.Flatten || o.FlattenTables || len(o.Postfixes) > 0 {
		if response, err = decodeOrNil(j.Response); err != nil {
			return nil, err
		}
	}
	var tail object
	if o.WithFeedback {
		tail = append(tail, kv{"feedback", rawOrNil(j.Feedback)}, kv{"feedback_tags", rawOrNil(j.FeedbackTag)})
	}
	if o.WithHistory {
		tail = append(tail, kv{"history", rawOrNil(j.History)})
	}
	responses := []any{response}
	if o.FlattenTables {
		responses = expandTable(response)
	}
	out := make([]object, 0, len(responses))
	for _, r := range responses {
		rec := append(object{}, head...)
		rec = o.section(rec, "input", input)
		rec = o.section(rec, "response", r)
		out = append(out, append(rec, tail...))
	}
	return out, nil
}

// section adds a JSON value under name: as one member, or flattened into dotted members.
func (o Options) section(rec object, name string, v any) object {
	obj, isObj := v.(object)
	if !o.Flatten || !isObj {
		if isObj && name == "response" && len(o.Postfixes) > 0 {
			v = o.annotate(obj, "")
		}
		return append(rec, kv{name, v})
	}
	var flat object
	flatten(&flat, name, obj)
	if name == "response" {
		flat = o.annotate(flat, name+".")
	}
	return append(rec, flat...)
}

func flatten(out *object, prefix string, o object) {
	for _, m := range o {
		key := prefix + "." + m.Key
		if sub, ok := m.Value.(object); ok && len(sub) > 0 {
			flatten(out, key, sub)
			continue
		}
		*out = append(*out, kv{key, m.Value})
	}
}

// annotate moves each member whose key ends with an annotation postfix right after the member it
// annotates (the key without the postfix), when that member exists.
func (o Options) annotate(members object, _ string) object {
	keys := make([]string, len(members))
	byKey := make(map[string]any, len(members))
	for i, m := range members {
		keys[i] = m.Key
		byKey[m.Key] = m.Value
	}
	out := make(object, 0, len(members))
	for _, k := range orderAnnotations(keys, o.Postfixes) {
		out = append(out, kv{k, byKey[k]})
	}
	return out
}

// orderAnnotations orders keys so that every annotation key follows its base key.
func orderAnnotations(keys []string, postfixes []string) []string {
	present := make(map[string]bool, len(keys))
	for _, k := range keys {
		present[k] = true
	}
	notes := map[string][]string{}
	isNote := map[string]bool{}
	for _, k := range keys {
		for _, p := range postfixes {
			if base := strings.TrimSuffix(k, p); base != k && base != "" && present[base] {
				notes[base] = append(notes[base], k)
				isNote[k] = true
				break
			}
		}
	}
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		if isNote[k] {
			continue
		}
		out = append(out, k)
		out = append(out, notes[k]...)
	}
	return out
}

// expandTable returns the response once per element of its first member that is a non-empty array
// of objects, that member replaced by the element; any other response once, as it is.
func expandTable(v any) []any {
	obj, ok := v.(object)
	if !ok {
		return []any{v}
	}
	for i, m := range obj {
		rows, ok := m.Value.([]any)
		if !ok || len(rows) == 0 || !allObjects(rows) {
			continue
		}
		out := make([]any, len(rows))
		for r, row := range rows {
			c := append(object{}, obj...)
			c[i] = kv{m.Key, row}
			out[r] = c
		}
		return out
	}
	return []any{v}
}

func allObjects(a []any) bool {
	for _, e := range a {
		if _, ok := e.(object); !ok {
			return false
		}
	}
	return true
}

// rawOrNil passes JSON through; SQL NULL stays nil.
func rawOrNil(raw []byte) any {
	if raw == nil {
		return nil
	}
	return rawJSON(raw)
}

func decodeOrNil(raw []byte) (any, error) {
	if raw == nil {
		return nil, nil
	}
	return decode(raw)
}

func timeOrNil(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UTC().Format(time.RFC3339Nano)
}
