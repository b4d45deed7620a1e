// Package csvsniff reads CSV files as loopwork's documents take them: UTF-8 with an optional
// byte-order mark, RFC 4180 quoting, any of four delimiters (detected when not given), blank lines
// skipped, every row as wide as the first. Errors name the line they were found on.
package csvsniff

import (
	"bytes"
	"fmt"
	"io"
)

// Error is a fault of the file itself, at a line (1-based, counted as a text editor does).
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

var bom = []byte{0xEF, 0xBB, 0xBF}

// Scan is a quick pass over a whole file that counts its records without splitting fields: only
// quotes and line ends matter for where a record ends, so the delimiter need not be known yet. It
// keeps the beginning of the file (up to headLimit bytes, cut at the end of a record) so the first
// records can be parsed properly afterwards.
type Scan struct {
	Size    int64 // bytes read, byte-order mark included
	Records int64 // non-blank records
	Head    []byte
	Open    int // the line of a quote still open at the end, or 0
	// Start is the file's first StartSize bytes as read, for CheckText.
	Start []byte

	headLimit int
	headWant  int64 // records wanted in Head
	headDone  bool
	started   bool   // the byte-order mark, if any, is behind
	lead      []byte // the first bytes, while they may still be the start of a mark
	inQuote   bool
	content   bool // the current line has something to read: more than a CRLF's CR, or a CR at the very end
	cr        bool // the last byte was a CR: content, unless a LF follows (encoding/csv reads a CR alone as text)
	line      int
	openedAt  int
	pending   []byte // bytes of the head since the last record end
}

// NewScan keeps up to headRecords records, and at most headLimit bytes, of the file's beginning.
func NewScan(headRecords int, headLimit int) *Scan {
	return &Scan{headLimit: headLimit, headWant: int64(headRecords), line: 1}
}

// Write feeds the next bytes of the file.
func (s *Scan) Write(p []byte) (int, error) {
	n := len(p)
	s.Size += int64(n)
	if room := StartSize - len(s.Start); room > 0 {
		s.Start = append(s.Start, p[:min(room, n)]...)
	}
	if !s.started {
		// The byte-order mark is told from content on the first three bytes, however the writes split
		// them: a file of only a mark split over two writes would otherwise count a row the reader skips.
		s.lead = append(s.lead, p...)
		if len(s.lead) < len(bom) && bytes.HasPrefix(bom, s.lead) {
			return n, nil
		}
		s.started = true
		p, s.lead = bytes.TrimPrefix(s.lead, bom), nil
	}
	s.scan(p)
	return n, nil
}

func (s *Scan) scan(p []byte) {
	start := 0
	for i, c := range p {
		if s.cr {
			s.cr = false
			if c != '\n' {
				s.content = true
			}
		}
		switch {
		case c == '"':
			if !s.inQuote {
				s.openedAt = s.line
			}
			s.inQuote = !s.inQuote
			s.content = true
		case c == '\n':
			s.line++
			if !s.inQuote && s.content {
				s.Records++
				s.content = false
				if !s.headDone {
					s.keep(p[start : i+1])
					start = i + 1
					s.Head = append(s.Head, s.pending...)
					s.pending = s.pending[:0]
					if s.Records >= s.headWant {
						s.headDone = true
					}
				}
			} else if !s.inQuote {
				s.content = false
			}
		case c == '\r':
			s.cr = true
		default:
			s.content = true
		}
	}
	if !s.headDone {
		s.keep(p[start:])
	}
}

// keep adds bytes of the current record to the head, giving up on the head once it is too long.
func (s *Scan) keep(b []byte) {
	if len(s.Head)+len(s.pending)+len(b) > s.headLimit {
		s.headDone = true
		s.pending = nil
		return
	}
	s.pending = append(s.pending, b...)
}

// Text says why the scanned file is not a CSV text file, or nil (see CheckText).
func (s *Scan) Text() error { return CheckText(s.Start, s.Size > int64(len(s.Start))) }

// Close ends the file: a last line without a line end is a record too; a quote still open is noted.
func (s *Scan) Close() {
	if !s.started {
		s.started = true
		s.scan(s.lead) // less than a whole mark: the reader takes these bytes as text
	}
	if s.inQuote {
		s.Open = s.openedAt
		return
	}
	if s.content {
		s.Records++
		if !s.headDone {
			s.Head = append(s.Head, s.pending...)
		}
	}
	s.pending = nil
	s.headDone = true
}

// ScanAll scans everything r yields.
func ScanAll(r io.Reader, headRecords, headLimit int) (*Scan, error) {
	s := NewScan(headRecords, headLimit)
	if _, err := io.CopyBuffer(s, r, make([]byte, 256<<10)); err != nil {
		return s, err
	}
	s.Close()
	return s, nil
}
