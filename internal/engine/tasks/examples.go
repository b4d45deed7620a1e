package tasks

// One example task per built-in type, as people write them in a flow definition. The /api contract shows each
// beside its type's schema and docs/flows.md beside its parameters, so they are meant to be copied: each is a
// realistic use of the type, and a test checks that its parameters pass the type's schema.
//
// jq expressions and templates read the task's input (`.`) and the execution's (`$input`), not `$tasks`: the
// examples are validated as a definition of their own, where no task has a predecessor.

// Example is a task of a flow definition that uses one type. Its fields are those of a task in the DSL, in the
// order people write them; Type is the type it illustrates (withExamples fills it in).
type Example struct {
	Name           string         `json:"name"`
	Type           string         `json:"type"`
	Parameters     map[string]any `json:"parameters"`
	Retry          *ExampleRetry  `json:"retry,omitempty"`
	TimeoutSeconds int            `json:"timeout_seconds,omitempty"`
	Description    string         `json:"description,omitempty"`
}

// ExampleRetry is the retry policy of an example task.
type ExampleRetry struct {
	MaxAttempts    int     `json:"max_attempts"`
	BackoffSeconds float64 `json:"backoff_seconds,omitempty"`
}

// builtinExamples holds the examples of the built-in types by type name.
var builtinExamples = map[string]Example{
	"transform": {
		Name:        "totals",
		Description: "Sums the invoice's lines and keeps what the accounting system needs.",
		Parameters: m{
			"expression": "{invoice_number, currency, total: (.lines | map(.quantity * .unit_price) | add)}",
		},
	},
	"condition": {
		Name:        "confident",
		Description: "Sends the extraction on to posting when the model was sure of it, to a reviewer otherwise.",
		Parameters: m{
			"expression": ".json.confidence >= 0.8 and .json.total != null",
		},
	},
	"http_request": {
		Name: "post_invoice",
		Description: "Posts the extracted invoice's fields to the ERP's webhook, with the sender of the e-mail the " +
			"execution started from.",
		Parameters: m{
			"url":    "https://erp.example.com/hooks/invoices/{{ .json.invoice_number }}",
			"method": "POST",
			"body": m{"vendor": "{{ .json.vendor }}", "total": "{{ .json.total }}", "received_from": "{{ $input.from }}",
				"note": "Invoice {{ .json.invoice_number }} from {{ .json.vendor }}"},
			"headers": m{
				"X-Source": "loopwork",
			},
			"query":           m{"tenant": "acme"},
			"timeout_seconds": 20,
			"credential_id":   "6f1c2a8e-3b4d-4c5e-9f60-7a8b9c0d1e2f",
		},
		Retry:          &ExampleRetry{MaxAttempts: 5, BackoffSeconds: 2},
		TimeoutSeconds: 120,
	},
	"llm": {
		Name:        "extract",
		Description: "Reads the invoice's text and returns its fields as JSON.",
		Parameters: m{
			"system": "You read invoices. Answer only with what the document says; leave a field null when it is " +
				"not there, and rate your confidence between 0 and 1.",
			"prompt":      "Extract the vendor, invoice number, date and total of this invoice:\n\n{{ .text }}",
			"temperature": 0,
			"max_tokens":  500,
			"output_schema": m{
				"type": "object",
				"properties": m{
					"vendor":         m{"type": "string"},
					"invoice_number": m{"type": "string"},
					"date":           m{"type": "string", "format": "date"},
					"total":          m{"type": []string{"number", "null"}},
					"confidence":     m{"type": "number", "minimum": 0, "maximum": 1},
				},
				"required": []string{"vendor", "invoice_number", "total", "confidence"},
			},
		},
		Retry:          &ExampleRetry{MaxAttempts: 3, BackoffSeconds: 5},
		TimeoutSeconds: 60,
	},
	"human_review": {
		Name:        "review",
		Description: "A person from accounts payable checks the extraction against the scanned invoice.",
		Parameters: m{
			"instructions": "Compare the **vendor**, **invoice number** and **total** with the scanned invoice and " +
				"correct what differs. Reject invoices that are not addressed to us.",
			"required_approvals": 1,
			"timeout_seconds":    2 * day,
			"on_timeout":         "reject",
		},
	},
	"sql_query": {
		Name:        "daily_revenue",
		Description: "Yesterday's paid orders and revenue by region.",
		Parameters: m{
			"database_id": "2d7e4b1a-9c3f-4e8d-a6b5-0f1e2d3c4b5a",
			"query": "SELECT region, count(*) AS orders, sum(total) AS revenue FROM orders " +
				"WHERE status = $1 AND created_at >= current_date - 1 AND created_at < current_date " +
				"GROUP BY region ORDER BY revenue DESC",
			"parameters": []any{"paid"},
			"max_rows":   100,
		},
		TimeoutSeconds: 120,
	},
	"email": {
		Name:        "send_report",
		Description: "Mails the daily revenue report (the sql_query's rows) to finance.",
		Parameters: m{
			"to":      []string{"finance@example.com"},
			"cc":      []string{"sales-leads@example.com"},
			"subject": "Revenue yesterday: {{ .rows | map(.revenue | tonumber) | add // 0 }} in {{ .row_count }} regions",
			"body": "Paid orders and revenue by region, yesterday:\n\n" +
				"{{ .rows | map(\"\\(.region): \\(.orders) orders, \\(.revenue)\") | join(\"\\n\") }}\n",
			"content_type": "text",
		},
	},
	"delay": {
		Name:        "wait_three_days",
		Description: "Gives the customer three days to pay before the reminder goes out.",
		Parameters: m{
			"seconds": 3 * day,
		},
	},
	"external": {
		Name:        "ocr",
		Description: "An OCR worker on a GPU machine turns the scanned invoice into text.",
		Parameters: m{
			"queue":   "ocr-gpu",
			"payload": m{"languages": []string{"en", "de"}, "dpi": 300},
		},
		Retry:          &ExampleRetry{MaxAttempts: 3, BackoffSeconds: 30},
		TimeoutSeconds: 900,
	},
}

// withExamples gives each type the example builtinExamples holds for it.
func withExamples(types []Type) []Type {
	for i := range types {
		if ex, ok := builtinExamples[types[i].Name]; ok {
			ex.Type = types[i].Name
			types[i].Example = &ex
		}
	}
	return types
}
