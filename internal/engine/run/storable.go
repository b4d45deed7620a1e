package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/engine/executors"
)

// An attempt's output (and detail) is JSON that PostgreSQL stores as jsonb, which refuses some valid
// JSON: a string holding the character NUL (\u0000), and numbers beyond its numeric type (an exponent
// or a run of digits in the thousands). A tenant's program, a web page an HTTP task fetched or a row a
// SQL task read can hold either. Left alone, the statement recording the outcome failed, the attempt
// stayed running, and every run after its lease failed the same way: the execution never moved on. So
// an outcome the database would refuse fails the attempt for good, saying why.

// storable returns why PostgreSQL would refuse text as jsonb, or nil. Texts that cannot hold what it
// refuses are passed at a glance (unsure); the others are cast by the database, which has the last word.
func (e *Engine) storable(ctx context.Context, text []byte) error {
	if len(text) == 0 || !unsure(text) {
		return nil
	}
	var ok bool
	err := e.db.GetContext(ctx, &ok, `SELECT $1::jsonb IS NOT NULL`, string(text))
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code.Class() == "22" {
		why := pqErr.Message
		if pqErr.Detail != "" {
			why += " (" + pqErr.Detail + ")"
		}
		return executors.Permanent(fmt.Errorf("the task's outcome cannot be stored: %s", why))
	}
	return err
}

// unsure is whether JSON text may hold what jsonb refuses: the escape of NUL, an exponent of four digits
// or more, or a run of a thousand digits.
func unsure(text []byte) bool {
	if bytes.Contains(text, []byte(`\u0000`)) {
		return true
	}
	run, exp := 0, -1 // exp counts the digits after an exponent's e, -1 outside one
	for i, c := range text {
		switch {
		case c >= '0' && c <= '9':
			if run++; run >= 1000 {
				return true
			}
			if exp >= 0 {
				if exp++; exp >= 4 {
					return true
				}
			}
		case (c == 'e' || c == 'E') && run > 0:
			run, exp = 0, 0
		case (c == '+' || c == '-') && exp == 0 && i > 0 && (text[i-1] == 'e' || text[i-1] == 'E'):
		default:
			run, exp = 0, -1
		}
	}
	return false
}

// encode writes o's result as the texts the database stores: its output when withOutput (an attempt
// that completes, whose output was not handed to it already), and its detail. An outcome the database
// would refuse then fails for good (storableOutcome).
func (e *Engine) encode(ctx context.Context, o *outcome, withOutput bool) error {
	var err error
	if withOutput {
		if o.output, err = json.Marshal(o.result.Output); err != nil {
			return err
		}
	}
	if o.result.Detail != nil {
		if o.detail, err = json.Marshal(o.result.Detail); err != nil {
			return err
		}
	}
	return e.storableOutcome(ctx, o)
}

// storableOutcome fails o for good when its output or detail is one the database would refuse. An
// attempt that failed already keeps its own error; its detail is dropped, since the failure must be
// recorded.
func (e *Engine) storableOutcome(ctx context.Context, o *outcome) error {
	for _, text := range [][]byte{o.output, o.detail} {
		err := e.storable(ctx, text)
		if err == nil {
			continue
		}
		if !executors.IsPermanent(err) {
			return err
		}
		if o.err == nil {
			o.err = err
		}
		o.output, o.detail = nil, nil
		return nil
	}
	return nil
}

// storedText is a message as the database can store it: the character NUL, which a failing program's
// error may hold (jq's error("…"), a fetched page quoted in an HTTP task's), becomes U+FFFD.
func storedText(s string) string { return strings.ReplaceAll(s, "\x00", "\uFFFD") }
