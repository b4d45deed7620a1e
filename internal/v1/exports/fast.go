package exports

import (
	"bufio"
	"context"
	"encoding/binary"
	"math"
	"os"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// appendJSONFloat formats a float the way encoding/json does, so the fast and the general paths agree.
func appendJSONFloat(dst []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// members flattens a job's input and response, the response's annotations after what they annotate.
func (o Options) members(out []member, j job, names *keyNames) []member {
	out = flattenRaw(out[:0], "input", j.Input, names)
	from := len(out)
	if j.Response == nil {
		return append(out, member{"response", nil})
	}
	out = flattenRaw(out, "response", j.Response, names)
	if len(o.Postfixes) == 0 {
		return out
	}
	resp := out[from:]
	keys := make([]string, len(resp))
	byKey := make(map[string][]byte, len(resp))
	for i, m := range resp {
		keys[i], byKey[m.key] = m.key, m.raw
	}
	for i, k := range orderAnnotations(keys, o.Postfixes) {
		resp[i] = member{k, byKey[k]}
	}
	return out
}

// fastJSONL writes JSON Lines without decoding any JSON: flattened keys are found by one scan of the
// text, values are PostgreSQL's text compacted.
func (s selection) fastJSONL(ctx context.Context, conn *pgx.Conn, bw *bufio.Writer, count func()) error {
	o := s.Options
	var line []byte
	var mems []member
	var names keyNames
	return s.each(ctx, conn, func(j job) error {
		line = headJSON(line[:0], j)
		if o.Flatten {
			mems = o.members(mems, j, &names)
			for _, m := range mems {
				line = append(line, ',')
				line = appendJSONString(line, m.key)
				line = append(line, ':')
				line = appendRaw(line, m.raw)
			}
		} else {
			line = append(line, `,"input":`...)
			line = appendRaw(line, j.Input)
			line = append(line, `,"response":`...)
			line = appendRaw(line, j.Response)
		}
		if o.WithFeedback {
			line = append(line, `,"feedback":`...)
			line = appendRaw(line, j.Feedback)
			line = append(line, `,"feedback_tags":`...)
			line = appendRaw(line, j.FeedbackTag)
		}
		if o.WithHistory {
			line = append(line, `,"history":`...)
			line = appendRaw(line, j.History)
		}
		line = append(line, '}', '\n')
		_, err := bw.Write(line)
		count()
		return err
	})
}

// fastSpooledCSV writes flattened CSV: each row's cells go to a temporary file, each under its column's
// number, while the columns are collected, then the header and the rows are written.
func (s selection) fastSpooledCSV(ctx context.Context, conn *pgx.Conn, bw *bufio.Writer, count func()) error {
	o := s.Options
	spool, err := os.CreateTemp("", "loopwork-export-")
	if err != nil {
		return err
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	sw := bufio.NewWriterSize(spool, 256<<10)
	cols := newColumns()
	// A cell is spooled under its column's number, given when the column is first seen.
	ids := map[string]int{}
	var keys []string
	var filled []bool
	id := func(key string) (int, bool) {
		if i, ok := ids[key]; ok {
			return i, false
		}
		ids[key] = len(keys)
		keys, filled = append(keys, key), append(filled, false)
		return len(keys) - 1, true
	}
	names := append(append([]string{}, fixed...), "feedback", "feedback_tags", "history")
	for _, k := range names {
		id(k)
	}
	var arena, rec []byte
	var cells [][]byte
	var mems []member
	var dotted keyNames
	// Where every segmentRows-th row starts in the spool, for the second pass to share out.
	var marks []int64
	var rows, written int64
	put := func(id int, val []byte) {
		rec = binary.AppendUvarint(rec, uint64(id))
		rec = binary.AppendUvarint(rec, uint64(len(val)))
		rec = append(rec, val...)
	}
	err = s.each(ctx, conn, func(j job) error {
		arena, cells = plainFields(j, Options{}, arena, cells)
		rec = rec[:0]
		n := len(fixed)
		mems = o.members(mems, j, &dotted)
		tail := 0
		if o.WithFeedback {
			tail += 2
		}
		if o.WithHistory {
			tail++
		}
		rec = binary.AppendUvarint(rec, uint64(n+len(mems)+tail))
		for i := 0; i < n; i++ {
			put(i, cells[i])
		}
		var cell []byte
		for _, m := range mems {
			i, first := id(m.key)
			if first {
				cols.addKey(m.key)
			}
			if !filled[i] && len(m.raw) > 0 && string(m.raw) != "null" {
				filled[i], cols.filled[m.key] = true, true
			}
			cell = cellOf(cell[:0], m.raw)
			put(i, cell)
		}
		if o.WithFeedback {
			put(ids["feedback"], appendCompact(cell[:0], j.Feedback))
			put(ids["feedback_tags"], appendCompact(cell[:0], j.FeedbackTag))
		}
		if o.WithHistory {
			put(ids["history"], appendCompact(cell[:0], j.History))
		}
		if rows%segmentRows == 0 {
			marks = append(marks, written)
		}
		rows++
		written += int64(len(rec))
		if _, err := sw.Write(rec); err != nil {
			return err
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
	for _, k := range fixed {
		cols.addKey(k)
	}
	if o.WithFeedback {
		cols.addKey("feedback")
		cols.addKey("feedback_tags")
	}
	if o.WithHistory {
		cols.addKey("history")
	}
	header := cols.order(o.Postfixes)
	// Where each column's cells go; a column the header left out (an empty bare response) has none.
	at := make([]int, len(keys))
	for i := range at {
		at[i] = -1
	}
	for h, k := range header {
		at[ids[k]] = h
	}
	c := csvWriter{w: bw, delim: o.delimiter(), quoteAll: o.QuoteAll}
	if !o.NoHeader {
		if err := c.row(header); err != nil {
			return err
		}
	}
	return copySegments(spool, append(marks, written), c, at, len(header))
}
