package llm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzBuiltin feeds the built-in model any prompt: it must answer, with JSON that has every property
// of the schema and a confidence between 0 and 1, and never a property's value taken from the
// instruction line (which names a field no input here has a label for).
func FuzzBuiltin(f *testing.F) {
	for _, seed := range []string{
		"Vendor: ACME\nTotal: 1,250.00 EUR", `{"text": "Invoice #2041\nDue date: 2/3/2026"}`, "Total:\n", "#", `"vendor": "`,
		"Issued is 2026-13-45. Call +1 (555) 010-0199!", "[{\"amount\": 1e400}]", "€1.250,00 €€ $ 12,5,6.7", "\x80\x80\x80\x80\x80 is ",
		"Date 3/2/26\nTOTAL 44.00 USD\nVAT - 4 USD", "Summarise:\n\nOne. Two! Three? Four.",
	} {
		f.Add(seed)
	}
	schema := map[string]any{}
	json.Unmarshal([]byte(`{"type": "object", "properties": {"vendor": {"type": "string"}, "total": {"type": ["number", "null"]},
		"date": {"type": "string", "format": "date"}, "kind": {"enum": ["bug", "question"]}, "tags": {"type": "array",
		"items": {"type": "string"}}, "zebra_stripes": {"type": "string"}, "confidence": {"type": "number"}}}`), &schema)
	f.Fuzz(func(t *testing.T, input string) {
		r := Request{Messages: []Message{{Role: "user", Content: "Extract the zebra stripes and the rest from this input:\n\n" + input}},
			Schema: schema}
		res, err := Builtin{}.Stream(context.Background(), r, func(Delta) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(res.Text), &got); err != nil || len(got) != 7 {
			t.Fatalf("%q: %s", input, res.Text)
		}
		if c, _ := got["confidence"].(float64); c < 0 || c > 1 {
			t.Fatalf("confidence %v", c)
		}
		if s, _ := got["zebra_stripes"].(string); s != "" && !strings.Contains(input, s) {
			t.Fatalf("%q: zebra stripes %q are not in the input", input, s)
		}
		r.Schema = nil
		if _, err := (Builtin{}).Stream(context.Background(), r, func(Delta) error { return nil }); err != nil {
			t.Fatal(err)
		}
	})
}
