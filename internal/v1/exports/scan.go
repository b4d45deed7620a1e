package exports

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/dbx"
)

// An export reads its rows on a connection of its own, as PostgreSQL's text, and makes each cell from
// that text: through database/sql and lib/pq every column of every row was decoded into a Go value
// (strings copied, timestamps parsed) and converted again by Scan, which was half of the CPU an export
// took, while PostgreSQL waited on it. The session is in UTC, so a timestamp's text needs no zone.

// readerSettings are the session's: timestamps in UTC and ISO style, floats in their shortest exact form.
var readerSettings = map[string]string{"timezone": "UTC", "datestyle": "ISO, MDY", "extra_float_digits": "1"}

// connectReader opens the connection an export reads its rows on.
func connectReader(ctx context.Context, dsn string) (*pgx.Conn, error) {
	return dbx.ConnectPgx(ctx, dsn, readerSettings)
}

// each streams the selected jobs to fn. The query goes by the simple protocol, whose results are text,
// its arguments written into it by pgx; rows are read off the connection one at a time, so the memory
// held is one row's whatever the number of jobs. A job's byte fields are views of the row, valid until fn
// returns.
func (s selection) each(ctx context.Context, conn *pgx.Conn, fn func(job) error) error {
	q, args, err := s.query()
	if err != nil {
		return err
	}
	rows, err := conn.Query(ctx, q, append([]any{pgx.QueryExecModeSimpleProtocol}, args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var j job
	var cells cellStore
	for rows.Next() {
		if err := cells.read(&j, rows.RawValues()); err != nil {
			return err
		}
		if s.Options.WithFeedback && j.Feedback == nil {
			j.Feedback = []byte("[]")
		}
		if s.Options.WithHistory && j.History == nil {
			j.History = []byte("[]")
		}
		if err := fn(j); err != nil {
			return err
		}
	}
	return rows.Err()
}

// cellStore holds the values a job's pointer fields point at, reused from row to row.
type cellStore struct {
	completedAt      time.Time
	score, trust     float64
	correct          bool
	batch, rev, fail string
}

// read fills j from a row of the query's columns, in its order.
func (c *cellStore) read(j *job, v [][]byte) error {
	if len(v) != 19 {
		return fmt.Errorf("export row of %d columns", len(v))
	}
	var err error
	if j.ID, err = strconv.ParseInt(string(v[0]), 10, 64); err != nil {
		return err
	}
	j.Status = interned(v[1])
	j.BatchID = c.text(v[2], &c.batch)
	j.Tags = v[3]
	if j.CreatedAt, err = timestamp(v[4]); err != nil {
		return err
	}
	j.CompletedAt = nil
	if v[5] != nil {
		if c.completedAt, err = timestamp(v[5]); err != nil {
			return err
		}
		j.CompletedAt = &c.completedAt
	}
	if j.Score, err = c.float(v[6], &c.score); err != nil {
		return err
	}
	if j.TrustScore, err = c.float(v[7], &c.trust); err != nil {
		return err
	}
	j.Correct = nil
	if v[8] != nil {
		c.correct = v[8][0] == 't'
		j.Correct = &c.correct
	}
	j.Reviewed = nil
	if v[9] != nil {
		c.rev = interned(v[9])
		j.Reviewed = &c.rev
	}
	j.Edited, j.Relabeled = len(v[10]) > 0 && v[10][0] == 't', len(v[11]) > 0 && v[11][0] == 't'
	j.Error = c.text(v[12], &c.fail)
	j.Metadata, j.Input, j.Response, j.FeedbackTag, j.Feedback, j.History = v[13], v[14], v[15], v[16], v[17], v[18]
	return nil
}

func (c *cellStore) text(b []byte, into *string) *string {
	if b == nil {
		return nil
	}
	*into = string(b)
	return into
}

func (c *cellStore) float(b []byte, into *float64) (*float64, error) {
	if b == nil {
		return nil, nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return nil, err
	}
	*into = f
	return into, nil
}

// known are the values of the status and reviewed columns, so a row does not copy them.
var known = map[string]string{}

func init() {
	for _, s := range []string{"SCHEDULED", "IN_PROGRESS", "SUSPENDED", "PENDING", "FAILED", "CANCELED", "EXPIRED",
		"COMPLETED", "NOT_REVIEWED", "CORRECT", "NOT_CORRECT"} {
		known[s] = s
	}
}

func interned(b []byte) string {
	if s, ok := known[string(b)]; ok {
		return s
	}
	return string(b)
}

// timestamp reads a timestamptz as a UTC session writes it in ISO style, 2006-01-02 15:04:05.999999+00,
// without parsing a layout; any other form (a year past 9999, BC) is lib/pq's to parse.
func timestamp(b []byte) (time.Time, error) {
	n := len(b)
	if n < 22 || b[4] != '-' || b[7] != '-' || b[10] != ' ' || b[13] != ':' || b[16] != ':' || string(b[n-3:]) != "+00" {
		return pq.ParseTimestamp(time.UTC, string(b))
	}
	num := func(from, to int) int {
		x := 0
		for _, c := range b[from:to] {
			if c < '0' || c > '9' {
				return -1
			}
			x = x*10 + int(c-'0')
		}
		return x
	}
	year, month, day, hour, minute, sec := num(0, 4), num(5, 7), num(8, 10), num(11, 13), num(14, 16), num(17, 19)
	nsec := 0
	if n > 22 {
		frac := b[19 : n-3]
		if len(frac) < 2 || len(frac) > 7 || frac[0] != '.' {
			return pq.ParseTimestamp(time.UTC, string(b))
		}
		nsec = num(20, n-3)
		for range 10 - len(frac) {
			nsec *= 10
		}
	}
	if year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || sec < 0 || nsec < 0 {
		return pq.ParseTimestamp(time.UTC, string(b))
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), nil
}
