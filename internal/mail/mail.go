// Package mail sends loopwork's e-mail (invitations, password links, export notices) through an outbox:
// a message is written in the same transaction as the change that causes it, together with a River
// job that delivers it. Nothing is lost when SMTP is down (the job retries) and nothing is sent for a
// change that rolled back.
package mail

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/queue"
)

// Message is one e-mail.
type Message struct {
	OrganizationID *uuid.UUID
	To             string
	// AlsoTo, Cc and Bcc are further recipients, each one address (mail of flows' email tasks).
	AlsoTo, Cc, Bcc []string
	Subject         string
	Text            string
	HTML            string
	// MessageID is the Message-ID header without its angle brackets; empty means the sender makes one
	// up. Mail whose id is reported to someone (an email task's output) sets it before it is written.
	MessageID string
}

// Sender delivers a message. Send must be safe to call again for the same message (delivery is at
// least once).
type Sender interface {
	Send(ctx context.Context, m Message) error
	// Delivers reports whether the sender really sends (SMTP) or only records (log).
	Delivers() bool
}

// SendArgs is the River job that delivers one outbox row.
type SendArgs struct {
	OutboxID uuid.UUID `json:"outbox_id"`
}

// Kind names the job in River's table.
func (SendArgs) Kind() string { return "mail_send" }

// InsertOpts retries delivery for about a day with River's backoff.
func (SendArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 20} }

// Enqueue writes m to the outbox and schedules its delivery, both inside tx.
func Enqueue(ctx context.Context, tx *sqlx.Tx, q *queue.Client, m Message) (uuid.UUID, error) {
	var id uuid.UUID
	err := tx.GetContext(ctx, &id, `INSERT INTO mail_outbox (organization_id, recipient, subject, text_body, html_body,
		also_to, cc, bcc, message_id) VALUES ($1, $2, $3, $4, NULLIF($5, ''), $6, $7, $8, NULLIF($9, '')) RETURNING id`,
		m.OrganizationID, m.To, m.Subject, m.Text, m.HTML, pq.Array(nonNil(m.AlsoTo)), pq.Array(nonNil(m.Cc)),
		pq.Array(nonNil(m.Bcc)), m.MessageID)
	if err != nil {
		return uuid.Nil, fmt.Errorf("write outbox: %w", err)
	}
	if _, err := q.InsertTx(ctx, tx.Tx, SendArgs{OutboxID: id}, nil); err != nil {
		return uuid.Nil, fmt.Errorf("schedule mail: %w", err)
	}
	return id, nil
}

// Worker delivers outbox rows.
type Worker struct {
	river.WorkerDefaults[SendArgs]
	db     *sqlx.DB
	sender Sender
	logger *slog.Logger
}

// NewWorker returns the delivery worker.
func NewWorker(db *sqlx.DB, sender Sender, logger *slog.Logger) *Worker {
	return &Worker{db: db, sender: sender, logger: logger}
}

// Timeout bounds one delivery attempt.
func (w *Worker) Timeout(*river.Job[SendArgs]) time.Duration { return time.Minute }

// Work sends the message unless an earlier attempt already did; the row's status makes redelivery of
// the job harmless.
func (w *Worker) Work(ctx context.Context, job *river.Job[SendArgs]) error {
	var row struct {
		OrganizationID *uuid.UUID
		Recipient      string
		Subject        string
		Text           string
		HTML           *string
		AlsoTo         []string
		Cc             []string
		Bcc            []string
		MessageID      string
		Status         string
	}
	err := w.db.QueryRowxContext(ctx, `SELECT organization_id, recipient, subject, text_body, html_body, also_to, cc,
		bcc, coalesce(message_id, ''), status FROM mail_outbox WHERE id = $1`, job.Args.OutboxID).Scan(&row.OrganizationID,
		&row.Recipient, &row.Subject, &row.Text, &row.HTML, pq.Array(&row.AlsoTo), pq.Array(&row.Cc), pq.Array(&row.Bcc), &row.MessageID, &row.Status)
	if errors.Is(err, sql.ErrNoRows) {
		return river.JobCancel(fmt.Errorf("outbox row %s is gone", job.Args.OutboxID))
	}
	if err != nil {
		return err
	}
	if row.Status == "sent" || row.Status == "logged" {
		return nil
	}
	m := Message{OrganizationID: row.OrganizationID, To: row.Recipient, AlsoTo: row.AlsoTo, Cc: row.Cc, Bcc: row.Bcc, Subject: row.Subject,
		Text: row.Text, MessageID: row.MessageID}
	if row.HTML != nil {
		m.HTML = *row.HTML
	}
	sendErr := w.sender.Send(ctx, m)
	// The attempt is recorded even when it ended because the job's time ran out: that is exactly
	// when an administrator needs last_error, and a delivered message must not stay 'pending'.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := sendErr; err != nil {
		status, permanent := "pending", Permanent(err)
		if permanent || job.Attempt >= job.MaxAttempts {
			status = "failed"
		}
		_, _ = w.db.ExecContext(ctx, `UPDATE mail_outbox SET attempts = attempts + 1, last_error = $2, status = $3
			WHERE id = $1`, job.Args.OutboxID, err.Error(), status)
		if permanent {
			return river.JobCancel(err)
		}
		return err
	}
	status := "sent"
	if !w.sender.Delivers() {
		status = "logged"
	}
	_, err = w.db.ExecContext(ctx, `UPDATE mail_outbox SET attempts = attempts + 1, status = $2, sent_at = now(),
		last_error = NULL WHERE id = $1`, job.Args.OutboxID, status)
	return err
}

// LogSender records messages in the log instead of sending them (no SMTP configured); the outbox row
// stays readable for administrators.
type LogSender struct{ Logger *slog.Logger }

// Send logs the message, including its text, so a developer can follow links from the log.
func (s LogSender) Send(ctx context.Context, m Message) error {
	s.Logger.InfoContext(ctx, "mail (no SMTP configured)", "to", m.To, "also_to", m.AlsoTo, "cc", m.Cc, "bcc", m.Bcc, "subject", m.Subject,
		"text", m.Text)
	return nil
}

// Delivers is false: nothing leaves the server.
func (LogSender) Delivers() bool { return false }
