package executors_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	netmail "net/mail"
	"slices"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/mail"
	"github.com/loopwork/loopwork/internal/queue"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestEmailInAFlow: an email task renders its templates on its input, completes with the Message-ID,
// and the outbox delivers the mail over SMTP to every recipient, the blind copy without a header.
func TestEmailInAFlow(t *testing.T) {
	t.Parallel()
	in := testkit.StartInbox(t)
	sender, err := mail.NewSMTPSender(mail.SMTPConfig{Host: "127.0.0.1", Port: in.Port, TLS: "none",
		From: "loopwork <no-reply@loopwork.test>"})
	if err != nil {
		t.Fatal(err)
	}
	env := testkit.NewEnv(t, testkit.WithMailSender(sender),
		testkit.WithConfig(func(c *config.Config) { c.SMTPFrom = "loopwork <no-reply@loopwork.test>" }))
	x := runFlow(t, env, `{"version": 1, "tasks": [{"name": "notify", "type": "email", "parameters": {
		"to": ["ana@example.com", "ben@example.com"], "cc": ["cy@example.com"], "bcc": ["audit@example.com"],
		"subject": "Invoice {{ .number }} for {{ .customer.name }}",
		"body": "Total: {{ .items | map(.price) | add }}\nItems: {{ .items | map(.name) }}"}}], "edges": []}`,
		map[string]any{"number": 42, "customer": map[string]any{"name": "Acme"},
			"items": []any{map[string]any{"name": "bolt", "price": 2}, map[string]any{"name": "nut", "price": 1.5}}})
	atts := attemptsOf(t, env, x, "notify")
	if s := executionStatus(t, env, x); s != "completed" || len(atts) != 1 {
		t.Fatalf("execution %s, attempts %+v", s, atts)
	}
	var out struct {
		MessageID string `json:"message_id"`
	}
	if err := json.Unmarshal(atts[0].Output, &out); err != nil || !strings.HasSuffix(out.MessageID, "@loopwork.test>") {
		t.Fatalf("output %s", atts[0].Output)
	}

	got := in.Wait(t, 1)
	if len(got) != 1 {
		t.Fatalf("%d messages", len(got))
	}
	rcpt := slices.Sorted(slices.Values(got[0].Rcpt))
	if !slices.Equal(rcpt, []string{"ana@example.com", "audit@example.com", "ben@example.com", "cy@example.com"}) {
		t.Fatalf("envelope recipients %v", rcpt)
	}
	msg, err := netmail.ReadMessage(bytes.NewReader(got[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(msg.Body)
	h := msg.Header
	if h.Get("Subject") != "Invoice 42 for Acme" || h.Get("Message-Id") != out.MessageID || h.Get("Bcc") != "" ||
		!strings.Contains(h.Get("To"), "ben@example.com") || !strings.Contains(h.Get("Cc"), "cy@example.com") {
		t.Fatalf("headers %v", h)
	}
	if text := strings.ReplaceAll(string(body), "\r\n", "\n"); !strings.Contains(text, "Total: 3.5\nItems: [\"bolt\",\"nut\"]") {
		t.Fatalf("body %q", body)
	}
}

// TestEmailOncePerAttempt: recording the same attempt twice (its InTx run in two transactions) writes
// one mail and one delivery job, and both report the same Message-ID, the one the mail carries, known
// before either transaction.
func TestEmailOncePerAttempt(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	workers := river.NewWorkers()
	river.AddWorker(workers, mail.NewWorker(env.DB, mail.LogSender{Logger: discard}, discard))
	q, err := queue.New(env.DB.DB, testkit.DSN(t, env.DB), workers, queue.Options{Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	email := executors.Email(executors.MailDeps{Queue: func() *queue.Client { return q }, Domain: "loopwork.test"})
	in := executors.Input{Org: org, Key: "exec/notify/0", Data: map[string]any{"who": "Ana"},
		Task: dsl.Task{Name: "notify", Type: "email", Parameters: map[string]any{
			"to": []any{"ana@example.com"}, "subject": "Hello {{ .who }}", "body": "Hi"}}}
	var ids []any
	for range 2 {
		res, err := email.Run(context.Background(), in)
		if err != nil || res.InTx == nil {
			t.Fatalf("run: %v", err)
		}
		ids = append(ids, res.Output)
		err = dbx.WithTx(context.Background(), env.DB, func(tx *sqlx.Tx) error { return res.InTx(context.Background(), tx) })
		if err != nil {
			t.Fatal(err)
		}
	}
	var rows, jobs int
	if err := env.DB.Get(&rows, `SELECT count(*) FROM mail_outbox WHERE idempotency_key = 'exec/notify/0' AND subject = 'Hello Ana'`); err != nil {
		t.Fatal(err)
	}
	var sent string
	if err := env.DB.Get(&sent, `SELECT '<' || message_id || '>' FROM mail_outbox WHERE idempotency_key = 'exec/notify/0'`); err != nil {
		t.Fatal(err)
	}
	if err := env.DB.Get(&jobs, `SELECT count(*) FROM river_job WHERE kind = 'mail_send'`); err != nil {
		t.Fatal(err)
	}
	first, _ := ids[0].(map[string]any)
	second, _ := ids[1].(map[string]any)
	if rows != 1 || jobs != 1 || first["message_id"] != sent || first["message_id"] != second["message_id"] {
		t.Fatalf("%d outbox rows, %d jobs, outputs %v, sent %s", rows, jobs, ids, sent)
	}
}

// TestEmailRefusals: an address that is not one, and a template expression that fails, fail the task
// for good, before anything is written.
func TestEmailRefusals(t *testing.T) {
	t.Parallel()
	email := executors.Email(executors.MailDeps{})
	for _, p := range []map[string]any{
		{"to": []any{"Eve <eve@example.com>, bob@example.com"}, "subject": "x", "body": "x"},
		{"to": []any{"ana@example.com"}, "cc": []any{"not an address"}, "subject": "x", "body": "x"},
		{"to": []any{"ana@example.com"}, "subject": "{{ error(\"no name\") }}", "body": "x"},
	} {
		_, err := email.Run(context.Background(), executors.Input{Key: "k", Task: dsl.Task{Type: "email", Parameters: p}})
		if err == nil || !executors.IsPermanent(err) {
			t.Errorf("%v: error %v", p, err)
		}
	}
}
