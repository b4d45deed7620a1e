package csvsniff

import (
	"bytes"
	"errors"
	"unicode/utf8"
)

// StartSize is how much of a file's beginning CheckText looks at.
const StartSize = 8 << 10

// Reasons a file is not a CSV text file, in words for the person who sent it.
var (
	ErrEmpty  = errors.New("the file is empty: a CSV file has at least one line")
	ErrBinary = errors.New("the file is binary (it holds NUL bytes), not a CSV text file")
	ErrNotUTF = errors.New("the file is not UTF-8 text (save it as CSV UTF-8)")
)

// CheckText says why a file whose first bytes are start is not a CSV text file, or nil: nothing but
// blanks, NUL bytes, or bytes that are not UTF-8. truncated tells that the file goes on after start,
// which may then end inside a character. Uploads and previews
// both ask it first, so a file is refused for the same reason whichever is tried, and a binary file is
// called binary rather than reported by the CSV parser as a stray quote.
func CheckText(start []byte, truncated bool) error {
	body := bytes.TrimPrefix(start, bom)
	if len(bytes.TrimSpace(body)) == 0 {
		return ErrEmpty
	}
	if bytes.IndexByte(body, 0) >= 0 {
		return ErrBinary
	}
	if truncated {
		for i := 0; i < utf8.UTFMax-1 && !utf8.Valid(body); i++ {
			body = body[:len(body)-1]
		}
	}
	if !utf8.Valid(body) {
		return ErrNotUTF
	}
	return nil
}
