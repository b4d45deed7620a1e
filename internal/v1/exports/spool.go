package exports

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"runtime"
)

// segmentRows are the rows of a spool's segment: the second pass of a flattened CSV writes segments on
// every core at once and in their order, each held in memory until its turn (a megabyte or two).
const segmentRows = 8192

// copySegments writes the spooled rows as CSV with copyRows, a segment (between two of the offsets in
// marks) at a time on each core, in order. The first pass had PostgreSQL working beside it; the second
// has the machine to itself, and on one core it was a fifth of the export's time.
func copySegments(spool *os.File, marks []int64, c csvWriter, at []int, width int) error {
	workers := max(1, min(runtime.GOMAXPROCS(0), 4))
	// A segment's buffers go back to free once written, so the pass makes no garbage to speak of.
	free := make(chan *segment, workers+2)
	type part struct {
		seg *segment
		err error
	}
	order := make(chan chan part, workers)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(order)
		for i := 0; i+1 < len(marks); i++ {
			ch := make(chan part, 1)
			select {
			case order <- ch:
			case <-stop:
				return
			}
			var sg *segment
			select {
			case sg = <-free:
			default:
				sg = newSegment()
			}
			go func(from, to int64) {
				ch <- part{sg, sg.copy(io.NewSectionReader(spool, from, to-from), c, at, width)}
			}(marks[i], marks[i+1])
		}
	}()
	for ch := range order {
		p := <-ch
		if p.err != nil {
			return p.err
		}
		if _, err := c.w.Write(p.seg.out.Bytes()); err != nil {
			return err
		}
		select {
		case free <- p.seg:
		default:
		}
	}
	return nil
}

// segment is what the second pass needs to write one segment in memory.
type segment struct {
	out bytes.Buffer
	w   *bufio.Writer
	r   *bufio.Reader
}

func newSegment() *segment {
	sg := &segment{r: bufio.NewReaderSize(nil, 64<<10)}
	sg.w = bufio.NewWriterSize(&sg.out, 64<<10)
	return sg
}

// copy writes the rows of src into out, as c would.
func (sg *segment) copy(src io.Reader, c csvWriter, at []int, width int) error {
	sg.out.Reset()
	sg.r.Reset(src)
	sg.w.Reset(&sg.out)
	if err := copyRows(sg.r, csvWriter{w: sg.w, delim: c.delim, quoteAll: c.quoteAll}, at, width); err != nil {
		return err
	}
	return sg.w.Flush()
}

// copyRows writes the spooled rows as CSV, each cell in the column at says.
func copyRows(r *bufio.Reader, c csvWriter, at []int, width int) error {
	row := make([][]byte, width)
	var buf []byte
	type span struct{ col, from, to int }
	var spans [64]span
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
		sp := spans[:0]
		for k := uint64(0); k < n; k++ {
			id, err := binary.ReadUvarint(r)
			if err != nil {
				return err
			}
			val, err := readChunk(r, &buf)
			if err != nil {
				return err
			}
			if col := at[id]; col >= 0 {
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
