package llm

import (
	"strings"
	"testing"
	"time"
)

func TestBuiltinNormalisesDates(t *testing.T) {
	t.Parallel()
	schema := `{"type": "object", "properties": {"date": {"type": "string", "format": "date"}, "issued": {"type": "string"},
		"confidence": {"type": "number"}}}`
	for _, written := range []string{"2026-03-02", "2026/3/2", "02/03/2026", "3/2/2026", "2.3.2026", "02-03-26",
		"2 March 2026", "2nd of March 2026", "March 2, 2026", "Mar 2 2026", "MARCH 2ND, 2026"} {
		got := ask(t, "", "Extract the date and when it was issued.\n\nDate: "+written+"\nIssued: "+written, schema).(map[string]any)
		// Only a field that says it is a date is normalised; "issued" keeps the document's own writing.
		if got["date"] != "2026-03-02" || got["issued"] != written || got["confidence"] != 1.0 {
			t.Errorf("%s: %v", written, got)
		}
	}
	for _, text := range []string{"31/04/2026", "29.02.2026", "13/13/2026"} {
		if d, ok := parseDate(text); ok {
			t.Errorf("%s is no date, read as %s", text, d)
		}
	}
	if d, _ := parseDate("4/13/2026"); d != "2026-04-13" {
		t.Errorf("a day above 12 tells the order: %s", d)
	}
}

func TestBuiltinReadsAmounts(t *testing.T) {
	t.Parallel()
	schema := `{"type": "object", "properties": {"total": {"type": "number"}, "currency": {"type": "string"}, "confidence": {"type": "number"}}}`
	for written, want := range map[string]float64{"1,250.00 EUR": 1250, "€1.250,00": 1250, "$99": 99, "USD 12.5": 12.5,
		"1 250,00 EUR": 1250, "12,50 €": 12.5, "€1.250": 1250, "£1,234,567.89": 1234567.89, "EUR -5.00": -5} {
		got := ask(t, "", "Extract the total:\n\nAmount due: "+written, schema).(map[string]any)
		if got["total"] != want || got["currency"] == "" || got["confidence"] != 0.9 {
			t.Errorf("%s: %v, want %v", written, got, want)
		}
	}
	for written, want := range map[string]float64{"Quantity: 3": 3, "Weight: 1.250": 1.25, "Count: 1,250": 1250, "Rate: 12,5": 12.5} {
		if v, _ := numberIn(written); v != want {
			t.Errorf("%s: %v, want %v", written, v, want)
		}
	}
}

func TestBuiltinFindsContacts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, kind, want string }{
		{"Mail me at jo.smith+bills@mail.example.co.uk.", "email", "jo.smith+bills@mail.example.co.uk"},
		{"See https://example.com/a?b=1, thanks", "url", "https://example.com/a?b=1"},
		{"Visit www.example.org today", "url", "www.example.org"},
		{"Ring (555) 123-4567 today", "phone", "(555) 123-4567"},
		{"Invoice date 2026-03-02, total 1.250.000 EUR", "phone", ""},
		{"Our ref INV-2041/B is attached", "invoice_number", "INV-2041/B"},
		{"PO-77 shipped", "order_number", "PO-77"},
	} {
		schema := `{"type": "object", "properties": {"` + c.kind + `": {"type": ["string", "null"]}}}`
		got := ask(t, "", c.text, schema).(map[string]any)[c.kind]
		if got == nil {
			got = ""
		}
		if got != c.want {
			t.Errorf("%q: %s %q, want %q", c.text, c.kind, got, c.want)
		}
	}
}

// TestBuiltinIsBounded feeds megabytes of text that patterns and JSON attempts could stumble over.
func TestBuiltinIsBounded(t *testing.T) {
	t.Parallel()
	huge := "Read this:\n\n" + strings.Repeat("{\"a\": [1, 2, {\"b\": 1.250,00 EUR 12/12/12 +1 555 ", 100000) + "\nTotal: 5 EUR"
	start := time.Now()
	got := ask(t, "", huge, invoiceSchema).(map[string]any)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("%d MB took %s", len(huge)>>20, d)
	}
	if got["vendor"] != "" || got["confidence"] == 1.0 {
		t.Errorf("%v", got)
	}
}
