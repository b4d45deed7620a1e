package exports

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"strconv"
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
func (o Options) members(out []member, j job) []member {
	out = flattenRaw(out[:0], "input", j.Input)
	from := len(out)
	if j.Response == nil {
		return append(out, member{"response", nil})
	}
	out = flattenRaw(out, "response", j.Response)
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
func (s selection) fastJSONL(ctx context.Context, db *sql.DB, bw *bufio.Writer, count func()) error {
	o := s.Options
	var line []byte
	var mems []member
	return s.each(ctx, db, func(j job) error {
		line = headJSON(line[:0], j)
		if o.Flatten {
			mems = o.members(mems, j)
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

// fastSpooledCSV writes flattened CSV: each row's cells go to a temporary file as key/value pairs while
// the columns are collected, then the header and the rows are written.
func (s selection) fastSpooledCSV(ctx context.Context, db *sql.DB, bw *bufio.Writer, count func()) error {
	o := s.Options
	spool, err := os.CreateTemp("", "loopwork-export-")
	if err != nil {
		return err
	}
	defer os.Remove(spool.Name())
	defer spool.Close()
	sw := bufio.NewWriterSize(spool, 256<<10)
	cols := newColumns()
	names := append(append([]string{}, fixed...), "feedback", "feedback_tags", "history")
	var arena, rec []byte
	var cells [][]byte
	var mems []member
	put := func(key string, val []byte) {
		rec = binary.AppendUvarint(rec, uint64(len(key)))
		rec = append(rec, key...)
		rec = binary.AppendUvarint(rec, uint64(len(val)))
		rec = append(rec, val...)
	}
	err = s.each(ctx, db, func(j job) error {
		arena, cells = plainFields(j, Options{}, arena, cells)
		rec = rec[:0]
		n := len(fixed)
		mems = o.members(mems, j)
		tail := 0
		if o.WithFeedback {
			tail += 2
		}
		if o.WithHistory {
			tail++
		}
		rec = binary.AppendUvarint(rec, uint64(n+len(mems)+tail))
		for i := 0; i < n; i++ {
			put(names[i], cells[i])
		}
		var cell []byte
		for _, m := range mems {
			cols.addKey(m.key)
			if len(m.raw) > 0 && string(m.raw) != "null" {
				cols.filled[m.key] = true
			}
			cell = cellOf(cell[:0], m.raw)
			put(m.key, cell)
		}
		if o.WithFeedback {
			put("feedback", appendCompact(cell[:0], j.Feedback))
			put("feedback_tags", appendCompact(cell[:0], j.FeedbackTag))
		}
		if o.WithHistory {
			put("history", appendCompact(cell[:0], j.History))
		}
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
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		return err
	}
	header := cols.order(o.Postfixes)
	at := make(map[string]int, len(header))
	for i, h := range header {
		at[h] = i
	}
	c := csvWriter{w: bw, delim: o.delimiter(), quoteAll: o.QuoteAll}
	if !o.NoHeader {
		if err := c.row(header); err != nil {
			return err
		}
	}
	r := bufio.NewReaderSize(spool, 256<<10)
	row := make([][]byte, len(header))
	var buf []byte
	for {
		n, err := binary.ReadUvarint(r)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		for i := range row {
			row[i] = nil
		}
		buf = buf[:0]
		type span struct{ col, from, to int }
		var spans [64]span
		sp := spans[:0]
		for k := uint64(0); k < n; k++ {
			key, err := readChunk(r, &buf)
			if err != nil {
				return err
			}
			name := string(buf[key.from:key.to])
			val, err := readChunk(r, &buf)
			if err != nil {
				return err
			}
			// A key the header left out (an empty bare response) has no column.
			if col, ok := at[name]; ok {
				sp = append(sp, span{col, val.from, val.to})
			}
		}
		for _, s := range sp {
			row[s.col] = buf[s.from:s.to]
		}
		if err := c.rowBytes(row); err != nil {
			return err
		}
	}
}

type chunk struct{ from, to int }

// readChunk appends one length-prefixed chunk of the spool to buf and says where it is.
func readChunk(r *bufio.Reader, buf *[]byte) (chunk, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return chunk{}, err
	}
	from := len(*buf)
	*buf = append(*buf, make([]byte, n)...)
	if _, err := io.ReadFull(r, (*buf)[from:]); err != nil {
		return chunk{}, err
	}
	return chunk{from, from + int(n)}, nil
}
