package executors

import (
	"context"
	"errors"
	"fmt"
	netmail "net/mail"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/mail"
	"github.com/loopwork/loopwork/internal/queue"
)

// MailDeps are what the email executor needs: the queue the outbox's delivery jobs go to (a function,
// because the queue is built after the engine that holds the executors) and the domain of the sender
// address, under which Message-IDs are made.
type MailDeps struct {
	Queue  func() *queue.Client
	Domain string
	// JQ renders the subject and body.
	JQ JQ
}

// Email renders the subject and body of its parameters on the task's input and writes the mail to the
// outbox inside the transaction that records the attempt, so the mail exists exactly when the attempt
// completed. The outbox row is keyed by the attempt's key: recording the same attempt again finds the
// mail already there and reports its Message-ID instead of writing another. Delivery happens later,
// retried by the outbox on its own; the task completes once the mail is queued.
func Email(d MailDeps) Executor {
	return Func(func(ctx context.Context, in Input) (Result, error) {
		p := in.Task.Parameters
		to, err := addresses(p, "to")
		if err != nil {
			return Result{}, Permanent(err)
		}
		if len(to) == 0 {
			return Result{}, Permanent(errors.New("to: the mail has no recipient"))
		}
		cc, err := addresses(p, "cc")
		if err != nil {
			return Result{}, Permanent(err)
		}
		bcc, err := addresses(p, "bcc")
		if err != nil {
			return Result{}, Permanent(err)
		}
		subject, err := render(ctx, d.JQ, p, "subject", in)
		if err != nil {
			return Result{}, err
		}
		body, err := render(ctx, d.JQ, p, "body", in)
		if err != nil {
			return Result{}, err
		}
		// The Message-ID is the attempt's, known before the outcome's transaction, so that the output (and
		// the edges decided from it) is too.
		m := mail.Message{OrganizationID: &in.Org, To: to[0], AlsoTo: to[1:], Cc: cc, Bcc: bcc,
			Subject: strings.Join(strings.Fields(subject), " "), MessageID: mail.MessageIDFor(in.Key, d.Domain)}
		if ct, _ := p["content_type"].(string); ct == "html" {
			m.HTML = body
		} else {
			m.Text = body
		}
		return Result{Output: map[string]any{"message_id": "<" + m.MessageID + ">"}, InTx: func(ctx context.Context, tx *sqlx.Tx) error {
			_, _, err := mail.EnqueueOnce(ctx, tx, d.Queue(), in.Key, d.Domain, m)
			return err
		}}, nil
	})
}

// addresses reads a list of plain e-mail addresses (no display names: the schema's email format).
func addresses(p map[string]any, param string) ([]string, error) {
	raw, _ := p[param].([]any)
	out := make([]string, 0, len(raw))
	for i, v := range raw {
		s, _ := v.(string)
		a, err := netmail.ParseAddress(s)
		if err != nil || a.Address != s || a.Name != "" {
			return nil, fmt.Errorf("%s[%d]: %q is not an e-mail address", param, i, s)
		}
		out = append(out, s)
	}
	return out, nil
}
