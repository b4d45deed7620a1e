package run

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/engine/executors"
)

// TestUnsure: texts that may hold what jsonb refuses are told apart from those that cannot.
func TestUnsure(t *testing.T) {
	for text, want := range map[string]bool{
		`{"s": "a\u0000b"}`: true, `{"n": 1e2000}`: true, `[1.5E-99999]`: true, `[` + strings.Repeat("7", 1000) + `]`: true,
		`{"n": 1e200, "s": "e12345"}`: false, `{"s": "\\u0000 is how NUL is written"}`: true, `[12345, 1.25e+300]`: false,
		`{"note": "see 2024e1234"}`: true, `{"a": "deep", "b": [true, false, null]}`: false,
	} {
		if got := unsure([]byte(text)); got != want {
			t.Errorf("unsure(%.60s) = %v, want %v", text, got, want)
		}
	}
}

// TestStorable: the database has the last word on the texts unsure lets through, and what it refuses
// is a permanent failure that says why.
func TestStorable(t *testing.T) {
	h := newHarness(t, newFakes().set())
	ctx := context.Background()
	for text, refused := range map[string]bool{
		`{"s": "a\u0000b"}`: true, `{"n": 1e200000}`: true, `{"s": "\\u0000 is how NUL is written"}`: false,
		`{"n": 1e2000}`: false, `{"note": "see 2024e1234"}`: false,
	} {
		err := h.e.storable(ctx, []byte(text))
		if (err != nil) != refused || (err != nil && !strings.Contains(err.Error(), "cannot be stored")) {
			t.Errorf("storable(%s): %v", text, err)
		}
	}
}

// TestOutcomeTheDatabaseRefusesFails: a program whose output jsonb refuses (here a string holding NUL,
// and a number beyond numeric) fails its attempt for good, saying why, and the execution with it; it
// used to stay running and fail to be recorded after every lease.
func TestOutcomeTheDatabaseRefusesFails(t *testing.T) {
	for _, out := range []string{`{"s": "a\u0000b"}`, `{"n": 1e200000}`} {
		f := newFakes()
		f.out["t2"] = json.RawMessage(out)
		h := inlineHarness(t, f)
		exec := h.startPrepared(h.flow(chainOf(4)), `{}`)
		h.waitStatus(exec, "failed")
		var msg string
		if err := h.db.Get(&msg, `SELECT error::text FROM task_executions WHERE flow_execution_id = $1 AND task_name = 't2'
			AND status = 'failed'`, exec); err != nil {
			t.Fatalf("%s: t2 has no failed attempt: %v", out, err)
		}
		if !strings.Contains(msg, "cannot be stored") || f.ran("t3") != 0 {
			t.Errorf("%s: t2's error %s; t3 ran %d times", out, msg, f.ran("t3"))
		}
	}
}

// TestFailureHoldingNULIsRecorded: a failure whose message holds NUL (jq's error with such a string, say)
// is recorded with U+FFFD in its place; it used to fail to be recorded after every lease.
func TestFailureHoldingNULIsRecorded(t *testing.T) {
	f := newFakes()
	f.fail["t2"] = executors.Permanent(errors.New("bad \x00 thing"))
	h := inlineHarness(t, f)
	exec := h.startPrepared(h.flow(chainOf(4)), `{}`)
	h.waitStatus(exec, "failed")
	var msg string
	if err := h.db.Get(&msg, `SELECT error->>'message' FROM task_executions WHERE flow_execution_id = $1 AND task_name = 't2'
		AND status = 'failed'`, exec); err != nil {
		t.Fatal(err)
	}
	if msg != "bad \uFFFD thing" {
		t.Fatalf("t2's error %q", msg)
	}
}
