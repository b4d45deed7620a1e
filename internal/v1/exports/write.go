package exports

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/loopwork/loopwork/internal/v1/filter"
)

// selection is what the worker reads of an export to write its file.
type selection struct {
	App, Org uuid.UUID
	Filter   filter.Set
	Options  Options
}

// query selects the export's jobs in id order. Feedback and history are aggregated per job by
// PostgreSQL, so one statement streams everything and no job costs a round trip. A job without a review
// is NOT_REVIEWED, as the job routes show it, not an empty field.
func (s selection) query() (string, []any, error) {
	w, err := s.Filter.Compile(2)
	if err != nil {
		return "", nil, err
	}
	feedback, history := "NULL::json", "NULL::json"
	if s.Options.WithFeedback {
		feedback = `(SELECT json_agg(json_build_object('message', f.message, 'feedback_tags', f.feedback_tags,
			'correct', f.correct, 'created_at', ` + utcText("f.created_at") + `) ORDER BY f.created_at, f.id)
			FROM job_feedback f WHERE f.app_id = j.app_id AND f.job_id = j.id)`
	}
	if s.Options.WithHistory {
		history = `(SELECT json_agg(json_build_object('at', ` + utcText("h.at") + `, 'event', h.event, 'actor', h.actor,
			'from_status', h.from_status, 'to_status', h.to_status, 'details', h.details) ORDER BY h.id)
			FROM job_history h WHERE h.app_id = j.app_id AND h.job_id = j.id)`
	}
	q := `SELECT j.id, j.status, j.batch_id, array_to_json(j.tags), j.created_at, j.completed_at, j.score, j.trust_score, j.correct,
		coalesce(j.reviewed, 'NOT_REVIEWED'), j.edited, j.relabeled, j.error, j.metadata, j.input, j.response, array_to_json(j.feedback_tags), ` +
		feedback + `, ` + history + `
		FROM jobs j WHERE j.app_id = $1 AND j.organization_id = $2 AND ` + w.SQL + ` ORDER BY j.id`
	return q, append([]any{s.App, s.Org}, w.Args...), nil
}

// utcText writes a timestamp as the fixed columns have it (Go's RFC 3339 with the fraction trimmed).
func utcText(col string) string {
	return `rtrim(rtrim(to_char(` + col + ` AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), '0'), '.') || 'Z'`
}

// write streams the file to w and returns the number of jobs written. progress is told every
// thousand jobs. A flattened CSV's columns are known only once every job was seen, so its rows wait in
// a temporary file, not in memory, until the header can be written.
func (s selection) write(ctx context.Context, conn *pgx.Conn, w io.Writer, progress func(int64)) (int64, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	var n int64
	count := func() {
		if n++; n%1000 == 0 && progress != nil {
			progress(n)
		}
		// An export makes garbage at the speed it reads rows, and the server runs with a lazy collector
		// (GOGC=400): left alone, the heap of a fresh process grew by 236 MB during a million-row export,
		// though it holds one row at a time. Collecting and returning memory every 65,536 rows costs a few
		// milliseconds each and keeps the growth to tens of MB.
		if n%65536 == 0 {
			debug.FreeOSMemory()
		}
	}
	o := s.Options
	// Tables, and annotations of a nested response, reshape JSON and take the general path; everything
	// else is written from PostgreSQL's JSON text without decoding it.
	general := o.FlattenTables || (!o.Flatten && len(o.Postfixes) > 0)
	var err error
	switch {
	case !o.CSV && general:
		err = s.each(ctx, conn, func(j job) error {
			recs, err := o.records(j)
			if err != nil {
				return fmt.Errorf("job %d: %w", j.ID, err)
			}
			for _, r := range recs {
				b, err := marshal(r)
				if err != nil {
					return err
				}
				bw.Write(b)
				bw.WriteByte('\n')
			}
			count()
			return nil
		})
	case !o.CSV:
		err = s.fastJSONL(ctx, conn, bw, count)
	case !o.Flatten:
		err = s.fixedCSV(ctx, conn, bw, count)
	case general:
		err = s.spooledCSV(ctx, conn, bw, count)
	default:
		err = s.fastSpooledCSV(ctx, conn, bw, count)
	}
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}

// fixedCSV writes CSV whose columns do not depend on the data: input and response are JSON text.
func (s selection) fixedCSV(ctx context.Context, conn *pgx.Conn, bw *bufio.Writer, count func()) error {
	o := s.Options
	c := csvWriter{w: bw, delim: o.delimiter(), quoteAll: o.QuoteAll}
	header := append(append([]string{}, fixed...), "input", "response")
	if o.WithFeedback {
		header = append(header, "feedback", "feedback_tags")
	}
	if o.WithHistory {
		header = append(header, "history")
	}
	if !o.NoHeader {
		if err := c.row(header); err != nil {
			return err
		}
	}
	if !o.FlattenTables && len(o.Postfixes) == 0 {
		var arena []byte
		var buf [][]byte
		return s.each(ctx, conn, func(j job) error {
			arena, buf = plainFields(j, o, arena, buf)
			if err := c.rowBytes(buf); err != nil {
				return err
			}
			count()
			return nil
		})
	}
	return s.each(ctx, conn, func(j job) error {
		recs, err := o.records(j)
		if err != nil {
			return fmt.Errorf("job %d: %w", j.ID, err)
		}
		for _, r := range recs {
			if err := c.row(fields(header, r)); err != nil {
				return err
			}
		}
		count()
		return nil
	})
}

// spooledCSV writes flattened CSV: records go to a temporary file while the columns are collected,
// then the header and the rows are written.
func (s selection) spooledCSV(ctx context.Context, conn *pgx.Conn, bw *bufio.Writer, count func()) error {
	o := s.Options
	spool, err := os.CreateTemp("", "loopwork-export-")
	if err != nil {
		return err
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	sw := bufio.NewWriterSize(spool, 256<<10)
	cols := newColumns()
	err = s.each(ctx, conn, func(j job) error {
		recs, err := o.records(j)
		if err != nil {
			return fmt.Errorf("job %d: %w", j.ID, err)
		}
		for _, r := range recs {
			cols.add(r)
			b, err := marshal(r)
			if err != nil {
				return err
			}
			sw.Write(b)
			sw.WriteByte('\n')
		}
		count()
		return nil
	})
	if err == nil {
		err = sw.Flush()
	}
	if err != nil {
		return err
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return err
	}
	header := cols.order(o.Postfixes)
	c := csvWriter{w: bw, delim: o.delimiter(), quoteAll: o.QuoteAll}
	if !o.NoHeader {
		if err := c.row(header); err != nil {
			return err
		}
	}
	sc := bufio.NewScanner(spool)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		v, err := decode(sc.Bytes())
		if err != nil {
			return err
		}
		rec, _ := v.(object)
		if err := c.row(fields(header, rec)); err != nil {
			return err
		}
	}
	return sc.Err()
}
