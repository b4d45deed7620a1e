package exports

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
)

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
