package llm

import (
	"fmt"
	"strings"
	"testing"
)

// TestBuiltinNeverAnswersTheInstruction asks for fields in several wordings, about inputs that have
// some of them, and checks that every value it answers is written in the input.
func TestBuiltinNeverAnswersTheInstruction(t *testing.T) {
	t.Parallel()
	inputs := []string{
		"Vendor: ACME Tools Ltd\nInvoice number: INV-2041\nTotal: 1,250.00 EUR",
		mustJSON(map[string]any{"text": "Supplier: Foo GmbH\nAmount due: €99\nIssued: 2 March 2026"}),
		mustJSON(map[string]any{"vendor": "Bar Inc.", "lines": []any{map[string]any{"amount": 5}}}),
		"Hi,\nplease find our bill for the repairs attached. It comes to $120.\nRegards, Sam",
		"Nothing of note here",
	}
	wordings := []string{
		"Extract the %s from this input, with your confidence from 0 to 1:\n\n%s",
		"Read the document below and answer with its %s.\n\n%s",
		"Please extract the %s from: %s",
		"You are an accounting clerk who names the vendor, the total amount and the date.\nGive the %s.\n\n%s",
		"Here is an invoice; answer with the %s as JSON.\n\n%s",
		"%[2]s\n\nExtract the %[1]s from the text above.",
		"Vendor, total and date, due date and notes of this invoice, %s:\n%s",
	}
	schema := `{"type": "object", "properties": {"vendor": {"type": "string"}, "total": {"type": ["number", "null"]},
		"date": {"type": ["string", "null"]}, "due_date": {"type": "string"}, "notes": {"type": "string"}, "confidence": {"type": "number"}}}`
	for _, in := range inputs {
		for _, w := range wordings {
			prompt := fmt.Sprintf(w, "vendor, total, date, due date and notes", in)
			got := ask(t, "Answer with the vendor, total, date, due date and notes: leave notes empty.", prompt, schema).(map[string]any)
			for k, v := range got {
				if s, ok := v.(string); ok && s != "" && !strings.Contains(in, s) && !isDateOf(s, in) {
					t.Errorf("%q\n%s is %q, which the input does not say", prompt, k, s)
				}
			}
			text := ask(t, "", prompt, "").(string)
			if flat := strings.Join(strings.Fields(in), " "); !strings.Contains(flat, strings.Join(strings.Fields(text), " ")) &&
				!strings.HasPrefix(in, "{") {
				t.Errorf("%q\nanswered %q, which the input does not say", prompt, text)
			}
		}
	}
}

func TestBuiltinAnswersTextFromTheInput(t *testing.T) {
	t.Parallel()
	article := "Loopwork runs flows. Each flow is a graph of tasks! Tasks may call models, e.g. the built-in one. " +
		"Reviews pause a flow. Nothing else matters."
	long := strings.Repeat("word ", 200)
	for _, c := range []struct{ system, prompt, want string }{
		{"", "Summarise this article in two sentences:\n\n" + article,
			"Loopwork runs flows. Each flow is a graph of tasks! Tasks may call models, e.g. the built-in one."},
		{"You summarize texts.", article, "Loopwork runs flows. Each flow is a graph of tasks! Tasks may call models, e.g. the built-in one."},
		{"", "TL;DR: " + mustJSON(map[string]any{"text": "Title line\n\nFirst point. Second point."}), "Title line. First point. Second point."},
		{"", "Translate to French:\n\nGood morning, everyone.", "Good morning, everyone."},
		{"", "Write a haiku about autumn.", ""},
		{"", "What is the capital of France?", "What is the capital of France?"},
		{"", "Summarise:\n\n" + long, strings.Repeat("word ", 58) + "word…"},
		{"", "Reply to this:\n\n" + long + long + long, strings.Repeat("word ", 98) + "word…"},
	} {
		if got := ask(t, c.system, c.prompt, ""); got != c.want {
			t.Errorf("%.60q: %q, want %q", c.prompt, got, c.want)
		}
	}
	// A schema that asks for a bare string is answered as text is.
	if got := ask(t, "Summarise the text.", article, `{"type": "string"}`); got != "Loopwork runs flows. Each flow is a graph of tasks! Tasks may call models, e.g. the built-in one." {
		t.Errorf("a string schema: %q", got)
	}
}

// isDateOf reports s as the ISO form of a date of text.
func isDateOf(s, text string) bool {
	for _, d := range dates(strings.ReplaceAll(text, `\n`, "\n")) {
		if d.iso == s {
			return true
		}
	}
	return false
}
