package mail_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/loopwork/loopwork/internal/mail"
	"github.com/loopwork/loopwork/internal/testkit"
)

// funcSender counts calls and answers with send.
type funcSender struct {
	calls atomic.Int32
	send  func(ctx context.Context) error
}

func (s *funcSender) Send(ctx context.Context, _ mail.Message) error {
	s.calls.Add(1)
	return s.send(ctx)
}

func (s *funcSender) Delivers() bool { return true }

func job(id uuid.UUID, attempt, maxAttempts int) *river.Job[mail.SendArgs] {
	return &river.Job[mail.SendArgs]{JobRow: &rivertype.JobRow{Attempt: attempt, MaxAttempts: maxAttempts},
		Args: mail.SendArgs{OutboxID: id}}
}

func outboxWithStatus(t *testing.T, db *sqlx.DB, status string) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	if err := db.Get(&id, `INSERT INTO mail_outbox (recipient, subject, text_body, status) VALUES ('a@example.com', 's', 't', $1)
		RETURNING id`, status); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestWorkerDoesNotResendFinishedRows(t *testing.T) {
	t.Parallel()
	db := testkit.DB(t)
	s := &funcSender{send: func(context.Context) error { return nil }}
	w := mail.NewWorker(db, s, discard)
	for _, status := range []string{"sent", "logged"} {
		id := outboxWithStatus(t, db, status)
		if err := w.Work(context.Background(), job(id, 2, 20)); err != nil {
			t.Fatalf("%s: %v", status, err)
		}
		if r := readOutbox(t, db, id); r.Status != status || r.Attempts != 0 {
			t.Fatalf("%s row changed to %+v", status, r)
		}
	}
	if s.calls.Load() != 0 {
		t.Fatal("a finished message was sent again")
	}
	err := w.Work(context.Background(), job(uuid.New(), 1, 20))
	var cancelled *river.JobCancelError
	if !errors.As(err, &cancelled) {
		t.Fatalf("missing row: %v, want the job cancelled", err)
	}
}

// TestWorkerRecordsAnAttemptThatRanOutOfTime: the send ends because the job's context expired; the
// attempt and its reason must still reach the row.
func TestWorkerRecordsAnAttemptThatRanOutOfTime(t *testing.T) {
	t.Parallel()
	db := testkit.DB(t)
	s := &funcSender{send: func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	}}
	w := mail.NewWorker(db, s, discard)
	id := outboxWithStatus(t, db, "pending")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := w.Work(ctx, job(id, 20, 20)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Work returned %v", err)
	}
	r := readOutbox(t, db, id)
	if r.Status != "failed" || r.Attempts != 1 || r.LastError == nil || !strings.Contains(*r.LastError, "deadline") {
		t.Fatalf("row after the last attempt timed out: %+v", r)
	}
}
