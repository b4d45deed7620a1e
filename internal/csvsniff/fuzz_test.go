package csvsniff

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzPreview: no input makes the sniffing panic; a preview never shows more than five rows or rows
// wider than its header, and its column names are distinct, non-empty and within PostgreSQL's 63 bytes.
func FuzzPreview(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "x;y\r\n\"1;2\";3", "\xEF\xBB\xBF|\n", "\"", "a\tb\n\n\n1\t2", " a , a ,,a_2\n1,2,3,4\n"} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, file []byte, header bool) {
		s, _ := ScanAll(bytes.NewReader(file), PreviewRows+1, 1<<16)
		p, err := MakePreview(s, 0, header)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Line < 1 {
				t.Fatalf("an error without its line: %v", err)
			}
			return
		}
		if len(p.Rows) > PreviewRows {
			t.Fatalf("%d rows", len(p.Rows))
		}
		for _, r := range p.Rows {
			if len(r) != len(p.Headers) {
				t.Fatalf("row %q, headers %q", r, p.Headers)
			}
		}
		seen := map[string]bool{}
		for _, h := range p.Headers {
			if h == "" || len(h) > 63 || seen[h] {
				t.Fatalf("column names %q", p.Headers)
			}
			seen[h] = true
		}
	})
}

// FuzzScan: the quick scan that counts a file's rows (the preview's total and the import's progress)
// counts what the reader then imports, whichever delimiter is used, and gives the same result however
// the file arrives in pieces; the head it keeps is the beginning of the file.
func FuzzScan(f *testing.F) {
	for _, s := range []string{"h1,h2\n\"a\"\"b\",\"c\r\nd\"\r\n\n\nx,y\r\n", "a;b\r\n1;2", "\xEF\xBB\xBFa\n\n", "\"\n\"\n", "a\r\r\nb\r\n", " \n\t\n"} {
		f.Add([]byte(s), uint8(3), uint8(0))
	}
	f.Fuzz(func(t *testing.T, file []byte, chunk, delim uint8) {
		whole, _ := ScanAll(bytes.NewReader(file), 3, 1<<10)
		pieces := NewScan(3, 1<<10)
		step := int(chunk%16) + 1
		for i := 0; i < len(file); i += step {
			pieces.Write(file[i:min(i+step, len(file))])
		}
		pieces.Close()
		if whole.Records != pieces.Records || whole.Open != pieces.Open || !bytes.Equal(whole.Head, pieces.Head) {
			t.Fatalf("in one piece: %d records, open %d, head %q; in pieces of %d: %d, %d, %q",
				whole.Records, whole.Open, whole.Head, step, pieces.Records, pieces.Open, pieces.Head)
		}
		if !bytes.HasPrefix(bytes.TrimPrefix(file, bom), whole.Head) {
			t.Fatalf("head %q is not the beginning of the file", whole.Head)
		}
		r := NewReader(bytes.NewReader(file), Delimiters[int(delim)%len(Delimiters)])
		for {
			_, err := r.Read()
			if err == nil {
				continue
			}
			if errors.Is(err, io.EOF) {
				break
			}
			var e *Error
			if !errors.As(err, &e) || e.Line < 1 {
				t.Fatalf("an error without its line: %v", err)
			}
			return // a file the reader refuses is not imported: nothing to count
		}
		if whole.Open != 0 || whole.Records != r.Records() {
			t.Fatalf("the scan counts %d records (open quote at line %d), the reader reads %d", whole.Records, whole.Open, r.Records())
		}
	})
}
