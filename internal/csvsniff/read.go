package csvsniff

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// MaxColumns is the most columns a document may have: PostgreSQL's limit for a table.
const MaxColumns = 1600

// Reader yields the records of a CSV file, checked: valid UTF-8 without NUL bytes, every record as
// wide as the first, no quote left open. Blank lines are skipped and a leading byte-order mark ignored.
type Reader struct {
	r       *csv.Reader
	width   int
	records int64
}

// NewReader reads r with the given delimiter.
func NewReader(r io.Reader, delimiter byte) *Reader {
	br := bufio.NewReaderSize(r, 256<<10)
	if head, err := br.Peek(3); err == nil && bytes.Equal(head, bom) {
		br.Discard(3)
	}
	c := csv.NewReader(br)
	c.Comma = rune(delimiter)
	c.ReuseRecord = true
	c.FieldsPerRecord = -1 // checked here, to say it in our words
	return &Reader{r: c}
}

// Read returns the next record (valid until the next call), or io.EOF after the last.
func (r *Reader) Read() ([]string, error) {
	rec, err := r.r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, parseError(err)
	}
	line, _ := r.r.FieldPos(0)
	if r.records == 0 {
		r.width = len(rec)
		if r.width > MaxColumns {
			return nil, &Error{Line: line, Msg: fmt.Sprintf("%d columns; a document has at most %d", r.width, MaxColumns)}
		}
	} else if len(rec) != r.width {
		return nil, &Error{Line: line, Msg: fmt.Sprintf("%d fields, but the first row has %d", len(rec), r.width)}
	}
	for i, f := range rec {
		if !utf8.ValidString(f) {
			l, _ := r.r.FieldPos(i)
			return nil, &Error{Line: l, Msg: fmt.Sprintf("field %d is not valid UTF-8 (is this a text file in another encoding, or not text at all?)", i+1)}
		}
		if strings.IndexByte(f, 0) >= 0 {
			l, _ := r.r.FieldPos(i)
			return nil, &Error{Line: l, Msg: fmt.Sprintf("field %d holds a NUL byte: this is not a text file", i+1)}
		}
	}
	r.records++
	return rec, nil
}

// Records is how many records were read so far.
func (r *Reader) Records() int64 { return r.records }

// Width is the number of fields of the first record.
func (r *Reader) Width() int { return r.width }

// parseError says encoding/csv's complaints in words a person who made the file understands.
func parseError(err error) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return err
	}
	switch {
	case errors.Is(pe.Err, csv.ErrQuote):
		return &Error{Line: pe.StartLine, Msg: "a quoted field is not closed (a quote is missing or stray)"}
	case errors.Is(pe.Err, csv.ErrBareQuote):
		return &Error{Line: pe.Line, Msg: fmt.Sprintf(`a quote (") inside an unquoted field at column %d; quote the field and double the quote`, pe.Column)}
	}
	return &Error{Line: pe.Line, Msg: pe.Err.Error()}
}
