package csvsniff

import (
	"bytes"
	"errors"
	"io"
)

// PreviewRows is how many data rows a preview shows.
const PreviewRows = 5

// HeadLimit is how much of a file's beginning a preview keeps to show its first rows.
const HeadLimit = 8 << 20

// Preview is what the preview of a file shows.
type Preview struct {
	Headers   []string
	Rows      [][]string
	TotalRows int64
	Columns   int
	Size      int64
	Delimiter byte
	HasHeader bool
}

// SizeMB is the size in megabytes, not rounded: a small file is a small fraction of one, not 0.
func (p Preview) SizeMB() float64 { return float64(p.Size) / 1048576 }

// MakePreview parses the first records of a scanned file with the given delimiter (0: detect it) and
// counts its rows from the scan. The whole file was scanned, so the counts describe all of it.
func MakePreview(s *Scan, delimiter byte, hasHeader bool) (Preview, error) {
	if s.Open > 0 {
		return Preview{}, &Error{Line: s.Open, Msg: "a quoted field is not closed (a quote is missing or stray)"}
	}
	if delimiter == 0 {
		delimiter = Detect(s.Head)
	}
	p := Preview{Size: s.Size, Delimiter: delimiter, HasHeader: hasHeader, TotalRows: s.Records, Rows: [][]string{}}
	r := NewReader(bytes.NewReader(s.Head), delimiter)
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Preview{}, err
		}
		if p.Headers == nil {
			if hasHeader {
				p.Headers = Columns(rec)
				continue
			}
			p.Headers = Numbered(len(rec))
		}
		if len(p.Rows) < PreviewRows {
			p.Rows = append(p.Rows, append([]string(nil), rec...))
		}
	}
	if p.Headers == nil {
		p.Headers = []string{}
	}
	p.Columns = len(p.Headers)
	if hasHeader && p.TotalRows > 0 {
		p.TotalRows--
	}
	return p, nil
}
