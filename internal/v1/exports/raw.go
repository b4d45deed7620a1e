package exports

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// rawJSON is a JSON value passed through as PostgreSQL wrote it, without spaces: what an export shows
// as JSON text needs no decoding, which is most of the cost of a row.
type rawJSON []byte

func (r rawJSON) MarshalJSON() ([]byte, error) {
	if r == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// appendCompact appends a JSON text without its insignificant spaces; nil is left out (a null cell).
// The text is PostgreSQL's, so valid: outside strings only the spaces it puts after , and : go.
func appendCompact(dst []byte, raw []byte) []byte {
	inString, escaped := false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// plainFields are a job's fields in the order of the nested CSV's header, built without decoding its
// JSON: the export's fast path, taken when no option reshapes input or response. The fields are slices
// of arena, which is reused from row to row, so a row allocates nothing.
func plainFields(j job, o Options, arena []byte, buf [][]byte) ([]byte, [][]byte) {
	arena, buf = arena[:0], buf[:0]
	var ends []int
	mark := func() { ends = append(ends, len(arena)) }
	arena = strconv.AppendInt(arena, j.ID, 10)
	mark()
	arena = append(arena, j.Status...)
	mark()
	if j.BatchID != nil {
		arena = append(arena, *j.BatchID...)
	}
	mark()
	arena = append(arena, j.Tags...)
	mark()
	arena = j.CreatedAt.UTC().AppendFormat(arena, time.RFC3339Nano)
	mark()
	if j.CompletedAt != nil {
		arena = j.CompletedAt.UTC().AppendFormat(arena, time.RFC3339Nano)
	}
	mark()
	for _, f := range []*float64{j.Score, j.TrustScore} {
		if f != nil {
			arena = appendJSONFloat(arena, *f)
		}
		mark()
	}
	if j.Correct != nil {
		arena = strconv.AppendBool(arena, *j.Correct)
	}
	mark()
	if j.Reviewed != nil {
		arena = append(arena, *j.Reviewed...)
	}
	mark()
	arena = strconv.AppendBool(arena, j.Edited)
	mark()
	arena = strconv.AppendBool(arena, j.Relabeled)
	mark()
	if j.Error != nil {
		arena = append(arena, *j.Error...)
	}
	mark()
	for _, raw := range [][]byte{j.Metadata, j.Input, j.Response} {
		arena = appendCompact(arena, raw)
		mark()
	}
	if o.WithFeedback {
		arena = appendCompact(arena, j.Feedback)
		mark()
		arena = append(arena, j.FeedbackTag...)
		mark()
	}
	if o.WithHistory {
		arena = appendCompact(arena, j.History)
		mark()
	}
	from := 0
	for _, to := range ends {
		buf = append(buf, arena[from:to])
		from = to
	}
	return arena, buf
}
