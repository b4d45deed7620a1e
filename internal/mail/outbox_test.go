package mail_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/mail"
	"github.com/loopwork/loopwork/internal/queue"
	"github.com/loopwork/loopwork/internal/testkit"
)

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// insertClient returns a River client that only inserts: it is never started, so the server's own
// workers deliver. River refuses to insert a kind its client has no worker for, hence the registration.
func insertClient(t *testing.T, db *sqlx.DB) *queue.Client {
	t.Helper()
	workers := river.NewWorkers()
	river.AddWorker(workers, mail.NewWorker(db, mail.LogSender{Logger: discard}, discard))
	q, err := queue.New(db.DB, testkit.DSN(t, db), workers, queue.Options{Logger: discard})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

type outboxRow struct {
	Status    string     `db:"status"`
	Attempts  int        `db:"attempts"`
	LastError *string    `db:"last_error"`
	SentAt    *time.Time `db:"sent_at"`
}

func readOutbox(t *testing.T, db *sqlx.DB, id uuid.UUID) outboxRow {
	t.Helper()
	var r outboxRow
	if err := db.Get(&r, `SELECT status, attempts, last_error, sent_at FROM mail_outbox WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return r
}

// waitOutbox polls the row until done says so; River works the job in the background.
func waitOutbox(t *testing.T, db *sqlx.DB, id uuid.UUID, what string, done func(outboxRow) bool) outboxRow {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := readOutbox(t, db, id)
		if done(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("outbox row never became %s: %+v", what, r)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitJob polls the mail job until done says so; River records a job's outcome after Work returns.
func waitJob(t *testing.T, db *sqlx.DB, what string, done func(state string, errs int) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var state string
		var errs int
		err := db.QueryRow(`SELECT state, coalesce(array_length(errors, 1), 0) FROM river_job WHERE kind = 'mail_send'`).Scan(&state, &errs)
		if err != nil {
			t.Fatal(err)
		}
		if done(state, errs) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("mail job never became %s: %s with %d errors", what, state, errs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func enqueue(t *testing.T, env *testkit.Env, m mail.Message) uuid.UUID {
	t.Helper()
	q := insertClient(t, env.DB)
	var id uuid.UUID
	err := dbx.WithTx(context.Background(), env.DB, func(tx *sqlx.Tx) (err error) {
		id, err = mail.Enqueue(context.Background(), tx, q, m)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestOutboxDeliversThroughSMTP(t *testing.T) {
	t.Parallel()
	srv := startSMTP(t, serverOptions{})
	env := testkit.NewEnv(t, testkit.WithMailSender(newSender(t, srv, nil)))

	// A change that rolls back takes its mail with it.
	rollback := errors.New("the change failed")
	err := dbx.WithTx(context.Background(), env.DB, func(tx *sqlx.Tx) error {
		if _, err := mail.Enqueue(context.Background(), tx, insertClient(t, env.DB), hello); err != nil {
			return err
		}
		return rollback
	})
	if !errors.Is(err, rollback) {
		t.Fatal(err)
	}

	id := enqueue(t, env, mail.Message{To: "ann@example.com", Subject: "Your invitation", Text: "Join us", HTML: "<p>Join us</p>"})
	if r := readOutbox(t, env.DB, id); r.Status != "pending" && r.Status != "sent" {
		t.Fatalf("new row has status %s", r.Status)
	}
	r := waitOutbox(t, env.DB, id, "sent", func(r outboxRow) bool { return r.Status == "sent" })
	if r.Attempts != 1 || r.LastError != nil || r.SentAt == nil {
		t.Fatalf("sent row %+v, want one attempt, no error, sent_at", r)
	}
	waitJob(t, env.DB, "completed", func(state string, _ int) bool { return state == "completed" })
	var rows int
	if err := env.DB.Get(&rows, `SELECT count(*) FROM mail_outbox`); err != nil || rows != 1 {
		t.Fatalf("%d outbox rows (%v), want only the committed one", rows, err)
	}
	got := srv.Messages()
	if len(got) != 1 || got[0].To[0] != "ann@example.com" {
		t.Fatalf("server received %+v, want the invitation once", got)
	}
	if p := parseMail(t, got[0].Data); p.Header.Get("Subject") != "Your invitation" || p.Text != "Join us" || p.HTML != "<p>Join us</p>" {
		t.Fatalf("received %+v", p)
	}
}

// TestOutboxRetriesWhileSMTPFails: the server refuses the first attempt with 451; the row stays
// pending with the reason, River retries, and the second attempt delivers exactly one message.
func TestOutboxRetriesWhileSMTPFails(t *testing.T) {
	t.Parallel()
	srv := startSMTP(t, serverOptions{FailData: 1})
	env := testkit.NewEnv(t, testkit.WithMailSender(newSender(t, srv, nil)))
	id := enqueue(t, env, hello)

	r := waitOutbox(t, env.DB, id, "attempted", func(r outboxRow) bool { return r.Attempts >= 1 })
	// River waits about a second before the retry, ample time to see the failed attempt.
	if r.Attempts != 1 || r.Status != "pending" || r.LastError == nil || !strings.Contains(*r.LastError, "451") {
		t.Fatalf("after a failed attempt: %+v", r)
	}
	waitJob(t, env.DB, "failed once", func(_ string, errs int) bool { return errs >= 1 })
	r = waitOutbox(t, env.DB, id, "sent", func(r outboxRow) bool { return r.Status == "sent" })
	if r.Attempts != 2 || r.LastError != nil {
		t.Fatalf("delivered row %+v, want two attempts and the error cleared", r)
	}
	if n := len(srv.Messages()); n != 1 {
		t.Fatalf("server accepted %d messages, want 1", n)
	}
}

// insertMail writes an outbox row and its job with the given options, as Enqueue does.
func insertMail(t *testing.T, env *testkit.Env, to string, opts *river.InsertOpts) uuid.UUID {
	t.Helper()
	q := insertClient(t, env.DB)
	var id uuid.UUID
	err := dbx.WithTx(context.Background(), env.DB, func(tx *sqlx.Tx) error {
		if err := tx.Get(&id, `INSERT INTO mail_outbox (recipient, subject, text_body) VALUES ($1, 's', 't')
			RETURNING id`, to); err != nil {
			return err
		}
		_, err := q.InsertTx(context.Background(), tx.Tx, mail.SendArgs{OutboxID: id}, opts)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestOutboxGivesUpOnPermanentRefusal: a 550 cannot get better with retries, so the first one marks
// the row failed and cancels the job, although attempts remain.
func TestOutboxGivesUpOnPermanentRefusal(t *testing.T) {
	t.Parallel()
	srv := startSMTP(t, serverOptions{RejectRcpt: "gone@example.com"})
	env := testkit.NewEnv(t, testkit.WithMailSender(newSender(t, srv, nil)))
	id := insertMail(t, env, "gone@example.com", nil)
	r := waitOutbox(t, env.DB, id, "failed", func(r outboxRow) bool { return r.Status == "failed" })
	if r.Attempts != 1 || r.LastError == nil || !strings.Contains(*r.LastError, "550") || r.SentAt != nil {
		t.Fatalf("failed row %+v", r)
	}
	waitJob(t, env.DB, "cancelled", func(state string, errs int) bool { return state == "cancelled" && errs == 1 })
}

// TestOutboxGivesUpAfterTheLastAttempt: a temporary refusal (451) is retried until the attempts run
// out; with a single attempt the row is then failed and River discards the job.
func TestOutboxGivesUpAfterTheLastAttempt(t *testing.T) {
	t.Parallel()
	srv := startSMTP(t, serverOptions{FailData: 100})
	env := testkit.NewEnv(t, testkit.WithMailSender(newSender(t, srv, nil)))
	id := insertMail(t, env, "later@example.com", &river.InsertOpts{MaxAttempts: 1})
	r := waitOutbox(t, env.DB, id, "failed", func(r outboxRow) bool { return r.Status == "failed" })
	if r.Attempts != 1 || r.LastError == nil || !strings.Contains(*r.LastError, "451") || r.SentAt != nil {
		t.Fatalf("failed row %+v", r)
	}
	waitJob(t, env.DB, "discarded", func(state string, errs int) bool { return state == "discarded" && errs == 1 })
}

func TestLogSenderMarksRowsLogged(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t) // no SMTP configured: the log sender
	id := enqueue(t, env, mail.Message{To: "ann@example.com", Subject: "Reset your password", Text: "https://loopwork.test/reset?t=1"})
	r := waitOutbox(t, env.DB, id, "logged", func(r outboxRow) bool { return r.Status == "logged" })
	if r.Attempts != 1 || r.LastError != nil || r.SentAt == nil {
		t.Fatalf("logged row %+v", r)
	}

	var buf strings.Builder
	s := mail.LogSender{Logger: slog.New(slog.NewTextHandler(&buf, nil))}
	if s.Delivers() {
		t.Fatal("the log sender must not claim to deliver")
	}
	if err := s.Send(context.Background(), mail.Message{To: "ann@example.com", Subject: "Reset", Text: "https://loopwork.test/reset?t=1"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ann@example.com", "Reset", "https://loopwork.test/reset?t=1"} {
		if !strings.Contains(buf.String(), want) {
			t.Fatalf("log %q lacks %q", buf.String(), want)
		}
	}
}
