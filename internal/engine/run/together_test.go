package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// marks is a Writer that writes each item (a task's name) with its transaction's id, all of a round's in
// one statement, and counts its calls. The round that writes r0 holds its transaction for hold once
// first is closed, so that the other reports arrive while it is under way; a round with fail fails.
type marks struct {
	calls      atomic.Int32
	first      chan struct{}
	hold       time.Duration
	fail       string
	closeFirst sync.Once
}

func (m *marks) Write(ctx context.Context, tx *sqlx.Tx, items []any) error {
	m.calls.Add(1)
	tasks := make([]string, len(items))
	for i, it := range items {
		tasks[i] = it.(string)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO together_marks SELECT unnest($1::text[]), txid_current()`, pq.Array(tasks)); err != nil {
		return err
	}
	for _, t := range tasks {
		switch t {
		case m.fail:
			return errors.New("refused")
		case "r0":
			m.closeFirst.Do(func() { close(m.first) })
			time.Sleep(m.hold)
		}
	}
	return nil
}

// reportAll reports the n reviews at once, each with ReportTogether and an item of m; r0 first, the
// others once its round is under way. It gives each report's error.
func reportAll(h *harness, flow, exec uuid.UUID, n int, m *marks) []error {
	if _, err := h.db.Exec(`CREATE TABLE IF NOT EXISTS together_marks (task text, tx bigint)`); err != nil {
		h.t.Fatal(err)
	}
	m.first = make(chan struct{})
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			task := fmt.Sprintf("r%d", i)
			if i > 0 {
				<-m.first
			}
			errs[i] = h.e.ReportTogether(context.Background(), AttemptKey{Execution: exec, Task: task}, flow, 1,
				json.RawMessage(fmt.Sprintf(`{"n": %d}`, i)), m, task)
		}()
	}
	wg.Wait()
	return errs
}

// TestReportTogetherRecordsRoundsOfCompletions: twenty reviews a join waits for, reported at once, are
// recorded in two transactions (the first report's, and one for the nineteen that arrived while it was
// under way), each with the write its caller handed over; every attempt completes once and the join runs
// once, on all twenty outputs.
func TestReportTogetherRecordsRoundsOfCompletions(t *testing.T) {
	t.Parallel()
	f := newFakes()
	h := newHarness(t, f.set())
	const n = 20
	flow, exec := reviewsJoin(h, f, n)
	m := &marks{hold: 100 * time.Millisecond}
	for i, err := range reportAll(h, flow, exec, n, m) {
		if err != nil {
			t.Fatalf("r%d: %v", i, err)
		}
	}
	var written, txs int
	if err := h.db.QueryRow(`SELECT count(*), count(DISTINCT tx) FROM together_marks`).Scan(&written, &txs); err != nil {
		t.Fatal(err)
	}
	if written != n || txs != 2 || m.calls.Load() != 2 {
		t.Fatalf("%d writes in %d transactions by %d calls, want %d in 2 by 2", written, txs, m.calls.Load(), n)
	}
	if c := reviewAttempts(h, exec, "completed"); c != n {
		t.Fatalf("%d review attempts completed, want %d", c, n)
	}
	h.drain()
	if in := joinInput(h, exec); h.status(exec) != "completed" || f.ran("join") != 1 || len(in) != n {
		t.Fatalf("execution %s, join ran %d times on %d outputs", h.status(exec), f.ran("join"), len(in))
	}
}

// TestReportTogetherThatFailsWritesNothing: a round whose caller's write fails is not recorded at all:
// each of its reports answers ErrAlone, no write of the round stays and its attempts still run, so
// that each caller can record its own in a transaction of its own (Report), which then moves on.
func TestReportTogetherThatFailsWritesNothing(t *testing.T) {
	t.Parallel()
	f := newFakes()
	h := newHarness(t, f.set())
	const n = 10
	flow, exec := reviewsJoin(h, f, n)
	errs := reportAll(h, flow, exec, n, &marks{hold: 100 * time.Millisecond, fail: "r5"})
	if errs[0] != nil {
		t.Fatalf("the first round: %v", errs[0])
	}
	for i, err := range errs[1:] {
		if !errors.Is(err, ErrAlone) {
			t.Fatalf("r%d of the failed round: %v, want ErrAlone", i+1, err)
		}
	}
	var written int
	if err := h.db.Get(&written, `SELECT count(*) FROM together_marks`); err != nil {
		t.Fatal(err)
	}
	if running := reviewAttempts(h, exec, "running"); written != 1 || running != n-1 {
		t.Fatalf("%d writes stayed and %d attempts run, want 1 and %d", written, running, n-1)
	}
	for i := 1; i < n; i++ {
		h.inTx(func(tx *sqlx.Tx) error {
			return h.e.Report(context.Background(), tx, AttemptKey{Execution: exec, Task: fmt.Sprintf("r%d", i)}, json.RawMessage(`{}`), nil)
		})
	}
	h.drain()
	if h.status(exec) != "completed" || f.ran("join") != 1 {
		t.Fatalf("execution %s, join ran %d times", h.status(exec), f.ran("join"))
	}
}
