package dsl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// bigDefinition builds a valid, realistic definition of n tasks and 2n edges: a layered graph of mixed task
// types with parameters, where each task after the first layer depends on two tasks of earlier layers and every
// fifth edge has a jq condition.
func bigDefinition(n int) map[string]any {
	taskList := make([]any, 0, n)
	for i := range n {
		var typ string
		var params map[string]any
		switch i % 6 {
		case 0:
			typ, params = "transform", map[string]any{"expression": fmt.Sprintf("{id: .id, total: (.items | map(.price) | add), n: %d}", i)}
		case 1:
			typ, params = "condition", map[string]any{"expression": fmt.Sprintf(".score > %d", i%100)}
		case 2:
			typ, params = "http_request", map[string]any{"url": fmt.Sprintf("https://api.example.com/items/%d", i),
				"method": "POST", "headers": map[string]any{"X-Trace": "t"}, "body": map[string]any{"i": float64(i)},
				"timeout_seconds": float64(10)}
		case 3:
			typ, params = "llm", map[string]any{"prompt": "Summarize {{ .document.text }} in one line.", "temperature": 0.2}
		case 4:
			typ, params = "email", map[string]any{"to": []any{"ops@example.com"}, "subject": "Task {{ .id }}", "body": "Done."}
		case 5:
			typ, params = "delay", map[string]any{"seconds": float64(5)}
		}
		taskList = append(taskList, map[string]any{"name": fmt.Sprintf("task_%05d", i), "type": typ,
			"parameters": params, "retry": map[string]any{"max_attempts": float64(3), "backoff_seconds": float64(2)}})
	}
	edgeList := make([]any, 0, 2*n)
	for i := 1; i < n && len(edgeList) < 2*n; i++ {
		for _, j := range []int{i - 1, i / 2} {
			e := map[string]any{"source": fmt.Sprintf("task_%05d", j), "target": fmt.Sprintf("task_%05d", i)}
			if len(edgeList)%5 == 0 {
				e["condition"] = fmt.Sprintf(".result == true and .n != %d", len(edgeList))
			}
			edgeList = append(edgeList, e)
		}
	}
	for len(edgeList) < 2*n { // top up to exactly 2n with long forward jumps
		k := len(edgeList)
		edgeList = append(edgeList, map[string]any{"source": fmt.Sprintf("task_%05d", k%(n/2)),
			"target": fmt.Sprintf("task_%05d", n/2+k%(n/2))})
	}
	return map[string]any{"version": float64(1), "tasks": taskList, "edges": edgeList}
}

func BenchmarkValidate10kTasks(b *testing.B) {
	reg := tasks.Builtin()
	def := bigDefinition(10000)
	if r := Validate(def, reg); len(r.Errors) > 0 || len(r.Order) != 10000 {
		b.Fatalf("benchmark definition is not valid: %d errors, first %+v", len(r.Errors), r.Errors[0])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Validate(def, reg)
	}
}

func BenchmarkValidateJSON10kTasks(b *testing.B) {
	reg := tasks.Builtin()
	raw, err := json.Marshal(bigDefinition(10000))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if r := ValidateJSON(raw, reg); len(r.Errors) > 0 {
			b.Fatal(r.Errors[0])
		}
	}
}

// BenchmarkDecode10kTasks is the baseline the two above are read against on a shared machine: decoding the same
// definition with encoding/json (UseNumber), and nothing else.
func BenchmarkDecode10kTasks(b *testing.B) {
	raw, err := json.Marshal(bigDefinition(10000))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			b.Fatal(err)
		}
	}
}
