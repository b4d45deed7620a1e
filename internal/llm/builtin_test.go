package llm

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

const invoiceSchema = `{"type": "object", "properties": {"vendor": {"type": "string"}, "invoice_number": {"type": "string"},
	"total": {"type": "number"}, "confidence": {"type": "number", "minimum": 0, "maximum": 1}}}`

// ask sends the built-in model a prompt (and a system message, when not empty) with a schema, and
// answers its JSON parsed, or its text when schema is empty.
func ask(t *testing.T, system, prompt, schema string) any {
	t.Helper()
	r := Request{Messages: []Message{{Role: "user", Content: prompt}}}
	if system != "" {
		r.Messages = append([]Message{{Role: "system", Content: system}}, r.Messages...)
	}
	if schema != "" {
		if err := json.Unmarshal([]byte(schema), &r.Schema); err != nil {
			t.Fatal(err)
		}
	}
	var streamed string
	res, err := Builtin{}.Stream(context.Background(), r, func(d Delta) error { streamed += d.Text; return nil })
	if err != nil || res.Model != BuiltinModel || streamed != res.Text {
		t.Fatalf("%+v %v (streamed %q)", res, err, streamed)
	}
	if schema == "" {
		return res.Text
	}
	var v any
	if err := json.Unmarshal([]byte(res.Text), &v); err != nil {
		t.Fatalf("not JSON: %s", res.Text)
	}
	return v
}

func TestBuiltinExtracts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, system, prompt, schema string
		want                         map[string]any
	}{
		{name: "an instruction then the input as JSON", schema: invoiceSchema,
			prompt: "Extract the vendor, total, date from this input, with your confidence from 0 to 1:\n\n" +
				`{"text":"Vendor: ACME Tools Ltd\nInvoice number: INV-2041\nTotal: 1,250.00 EUR\n"}`,
			want: map[string]any{"vendor": "ACME Tools Ltd", "invoice_number": "INV-2041", "total": 1250.0, "confidence": 1.0}},
		{name: "one of four missing, null where null is allowed",
			schema: `{"type": "object", "properties": {"vendor": {"type": "string"}, "invoice_number": {"type": "string"},
				"total": {"type": "number"}, "due_date": {"type": ["string", "null"], "format": "date"}, "confidence": {"type": "number"}}}`,
			prompt: "Read the document below and answer with its fields.\n\nACME Tools Ltd, 12 Harbour Road\nVendor: ACME Tools Ltd\n" +
				"Invoice number: INV-2041\nIssued: 2026-03-02\nTotal: 1,250.00 EUR\n",
			want: map[string]any{"vendor": "ACME Tools Ltd", "invoice_number": "INV-2041", "total": 1250.0, "due_date": nil, "confidence": 0.75}},
		{name: "a missing field not nullable is its type's zero value",
			schema: `{"type": "object", "properties": {"total": {"type": "integer"}, "paid": {"type": "boolean"}, "po": {"type": "string"},
				"tags": {"type": "array", "items": {"type": "string"}}, "confidence": {"type": "number"}}}`,
			prompt: "Extract the fields:\n\nTotal: 12.4 USD\nPaid: yes",
			want:   map[string]any{"total": 12.0, "paid": true, "po": "", "tags": []any{}, "confidence": 0.5}},
		{name: "an e-mail: unlabelled patterns are less sure",
			schema: `{"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": "string"}, "phone": {"type": "string"},
				"order_number": {"type": "string"}, "date": {"type": "string"}, "confidence": {"type": "number"}}}`,
			system: "You read customer e-mails and answer with their sender's details.",
			prompt: "From: Jane Doe <jane.doe@example.com>\nSubject: late delivery\n\nHello, my order ORD-5531 placed on " +
				"March 2, 2026 has not arrived. Call me at +44 20 7946 0958.\nJane",
			want: map[string]any{"name": "Jane Doe", "email": "jane.doe@example.com", "phone": "+44 20 7946 0958",
				"order_number": "ORD-5531", "date": "2026-03-02", "confidence": 0.84}},
		{name: "JSON members are labels, synonyms and nesting included",
			schema: `{"type": "object", "properties": {"vendor": {"type": "string"}, "total": {"type": "number"},
				"date": {"type": "string", "format": "date"}, "currency": {"type": "string"}, "customer": {"type": "object",
				"properties": {"email": {"type": "string"}}}, "confidence": {"type": "number"}}}`,
			prompt: "Answer with the fields of this invoice: " + `{"supplier": "Müller & Söhne GmbH", "amountDue": "€1.250,50",
				"issued": "2 March 2026", "customer": {"name": "Bob", "e-mail": "bob@example.org"}}`,
			want: map[string]any{"vendor": "Müller & Söhne GmbH", "total": 1250.5, "date": "2026-03-02", "currency": "EUR",
				"customer": map[string]any{"email": "bob@example.org"}, "confidence": 0.96}},
		{name: "several candidates are ambiguous",
			schema: `{"type": "object", "properties": {"email": {"type": "string"}, "total": {"type": ["number", "null"]},
				"vendor": {"type": ["string", "null"]}, "confidence": {"type": "number"}}}`,
			prompt: "Extract the email, total and vendor.\n\nWrite to a@example.com or b@example.com. We owe $99 and €12.50.",
			want:   map[string]any{"email": "a@example.com", "total": 99.0, "vendor": nil, "confidence": 0.33}},
		{name: "a labelled value beats unlabelled ones; a qualified label is another field's",
			schema: `{"type": "object", "properties": {"date": {"type": "string"}, "total": {"type": "number"}, "confidence": {"type": "number"}}}`,
			prompt: "Due date: 2026-04-01\nInvoice date: 02/03/2026\nVAT: 250 EUR\nTotal amount: 1 250,00 EUR\nTax amount: 5 EUR",
			want:   map[string]any{"date": "2026-03-02", "total": 1250.0, "confidence": 1.0}},
		{name: "the same label twice with different values",
			schema: `{"type": "object", "properties": {"total": {"type": "number"}, "confidence": {"type": "number"}}}`,
			prompt: "Total: 100 EUR\nTotal: 120 EUR",
			want:   map[string]any{"total": 100.0, "confidence": 0.5}},
		{name: "quoted keys, 'is' and '#' as separators",
			schema: `{"type": "object", "properties": {"vendor": {"type": "string"}, "invoice_number": {"type": "string"},
				"total": {"type": "number"}, "confidence": {"type": "number"}}}`,
			prompt: "Extract: \"vendor\": \"ACME\", the total is USD 12.5, invoice #2041 attached",
			want:   map[string]any{"vendor": "ACME", "invoice_number": "2041", "total": 12.5, "confidence": 1.0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := ask(t, c.system, c.prompt, c.schema); !reflect.DeepEqual(got, any(c.want)) {
				t.Fatalf("got  %v\nwant %v", got, c.want)
			}
		})
	}
}

func TestBuiltinClassifiesTheInput(t *testing.T) {
	t.Parallel()
	const tickets = `{"type": "object", "properties": {"category": {"enum": ["bug", "feature", "question"]}, "confidence": {"type": "number"}}}`
	const feelings = `{"type": "object", "properties": {"sentiment": {"type": "string", "enum": ["positive", "neutral", "negative"]},
		"confidence": {"type": "number"}}}`
	for _, c := range []struct {
		schema, input, want string
		confidence          float64
	}{
		{tickets, "The app crashes when I press save.", "bug", 0.8},
		{tickets, "It would be nice if exports supported CSV. Please add it!", "feature", 0.8},
		{tickets, "How do I reset my password?", "question", 0.8},
		{tickets, "Found a bug in the editor", "bug", 1},
		{tickets, "Why does it crash when I log in?", "bug", 0.5},
		{tickets, "Hello", "bug", 0},
		{tickets, "Category: question\nThe upload fails with an error.", "question", 1},
		{feelings, "I love it, thanks a lot", "positive", 0.8},
		{feelings, "Terrible service. I want a refund.", "negative", 0.8},
		{feelings, "The parcel arrived on Tuesday.", "neutral", 0.5},
	} {
		for _, prompt := range []string{
			"Classify this ticket as bug, feature or question, and the sentiment as positive, neutral or negative:\n\n" + c.input,
			"Classify the text as one of positive, neutral, negative, bug, feature, question: " + mustJSON(map[string]any{"text": c.input}),
		} {
			got, _ := ask(t, "", prompt, c.schema).(map[string]any)
			var label any
			for k, v := range got {
				if k != "confidence" {
					label = v
				}
			}
			if label != c.want || got["confidence"] != c.confidence {
				t.Errorf("%q in %q: %v, want %s with %v", c.input, prompt, got, c.want, c.confidence)
			}
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
