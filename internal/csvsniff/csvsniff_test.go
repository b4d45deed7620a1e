package csvsniff

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func preview(t *testing.T, file string, delim byte, header bool) (Preview, error) {
	t.Helper()
	s, err := ScanAll(strings.NewReader(file), PreviewRows+1, HeadLimit)
	if err != nil {
		t.Fatal(err)
	}
	return MakePreview(s, delim, header)
}

func TestDetect(t *testing.T) {
	cases := map[string]byte{
		"a,b,c\n1,2,3\n":              ',',
		"a;b;c\n1;2,5;3\n":            ';',
		"a\tb\n1\t2\n":                '\t',
		"a|b|c\n1|2|3\n":              '|',
		"name\nx\n":                   ',',
		"\"a;b\",c\n\"x;y\",z\n":      ',',
		"a;b\n\"1,5\";2\n\"2,5\";3\n": ';',
		"\xEF\xBB\xBFa|b\n1|2\n":      '|',
		"a,b;c\n1,2;3\n4,5;6;7\n":     ',',
		"":                            ',',
	}
	for in, want := range cases {
		if got := Detect([]byte(in)); got != want {
			t.Errorf("Detect(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPreview(t *testing.T) {
	file := "\xEF\xBB\xBFid;name;note\r\n1;Ann;\"multi\nline\"\n\n2;Bob;x\r\n3;C;\n4;D;\n5;E;\n6;F;"
	p, err := preview(t, file, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if p.Delimiter != ';' || p.TotalRows != 6 || p.Columns != 3 || len(p.Rows) != 5 ||
		strings.Join(p.Headers, "|") != "id|name|note" || p.Rows[0][2] != "multi\nline" || p.Size != int64(len(file)) {
		t.Fatalf("%+v", p)
	}
	p, err = preview(t, "a,b\n1,2\n", ',', false)
	if err != nil || p.TotalRows != 2 || strings.Join(p.Headers, ",") != "column_1,column_2" || p.Rows[0][0] != "a" {
		t.Fatalf("%+v %v", p, err)
	}
	p, err = preview(t, "", 0, true)
	if err != nil || p.TotalRows != 0 || len(p.Headers) != 0 {
		t.Fatalf("empty: %+v %v", p, err)
	}
}

func TestColumns(t *testing.T) {
	got := Columns([]string{" a ", "", "a", "a", strings.Repeat("é", 40)})
	want := []string{"a", "column_2", "a_2", "a_3", strings.Repeat("é", 31)}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Columns = %q, want %q", got, want)
		}
	}
}

// TestBadFiles: each fault is reported with the line it is on.
func TestBadFiles(t *testing.T) {
	cases := []struct{ file, says string }{
		{"a,b\n1,2\n3\n", "line 3: 1 fields, but the first row has 2"},
		{"a,b\n1,2\n3,4,5\n", "line 3: 3 fields"},
		{"a,b\n1,\"open\n2,3\n", "line 2: a quoted field is not closed"},
		{"a,b\n1,x\"y\n", "line 2: a quote"},
		{"a,b\n1,\xff\xfe\n", "line 2: field 2 is not valid UTF-8"},
		{"a,b\n1,x\x00y\n", "line 2: field 2 holds a NUL byte"},
		{strings.Repeat("c,", 9999) + "c\n", "line 1: 10000 columns; a document has at most 1600"},
	}
	for _, c := range cases {
		r := NewReader(strings.NewReader(c.file), ',')
		var err error
		for err == nil {
			_, err = r.Read()
		}
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%q: %v, want %q", c.file, err, c.says)
		}
	}
	if _, err := preview(t, "a,b\n1,\"2\n", 0, true); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("open quote at the end: %v", err)
	}
}

// TestScanMatchesReader: the quick count agrees with a full parse on valid files, whatever the write sizes.
func TestScanMatchesReader(t *testing.T) {
	file := "h1,h2\n\"a\"\"b\",\"c\r\nd\"\r\n\n\nx,y\r\n" + strings.Repeat("1,2\n", 1000) + "last,row"
	for _, chunk := range []int{1, 3, 7, 4096} {
		s := NewScan(3, 1<<20)
		for i := 0; i < len(file); i += chunk {
			s.Write([]byte(file[i:min(i+chunk, len(file))]))
		}
		s.Close()
		r := NewReader(strings.NewReader(file), ',')
		for {
			if _, err := r.Read(); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
		if s.Records != r.Records() || !bytes.HasPrefix([]byte(file), s.Head) || string(s.Head) != "h1,h2\n\"a\"\"b\",\"c\r\nd\"\r\n\n\nx,y\r\n" {
			t.Fatalf("chunk %d: scan %d records (head %q), reader %d", chunk, s.Records, s.Head, r.Records())
		}
	}
}
