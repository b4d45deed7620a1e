package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestReport: a passing test's output is dropped, a failing one's is printed without -v's lines, the
// slowest tests come first, and the last line counts the outcomes.
func TestReport(t *testing.T) {
	stream := `{"Action":"run","Package":"p","Test":"TestFast"}
{"Action":"output","Package":"p","Test":"TestFast","Output":"=== RUN   TestFast\n"}
{"Action":"output","Package":"p","Test":"TestFast","Output":"    quiet\n"}
{"Action":"pass","Package":"p","Test":"TestFast","Elapsed":0.5}
{"Action":"output","Package":"p","Test":"TestSlow","Output":"    loud\n"}
{"Action":"fail","Package":"p","Test":"TestSlow","Elapsed":7.25}
{"Action":"output","Package":"p","Output":"FAIL\tp\t8.0s\n"}
{"Action":"fail","Package":"p","Elapsed":8}
not json
{"Action":"output","Package":"q","Output":"ok  \tq\t0.1s\n"}
{"Action":"pass","Package":"q","Elapsed":0.1}
`
	var out bytes.Buffer
	r := newReport(&out)
	if err := r.read(strings.NewReader(stream)); err != nil {
		t.Fatal(err)
	}
	r.summary(10)
	got := out.String()
	for _, want := range []string{"    loud\n", "FAIL\tp\t8.0s\n", "not json\n", "ok  \tq\t0.1s\n",
		"    7.25s  TestSlow p\n    0.50s  TestFast p\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"quiet", "=== RUN"} {
		if strings.Contains(got, not) {
			t.Errorf("output shows %q:\n%s", not, got)
		}
	}
	if !strings.HasSuffix(got, "FAIL\tp\n1 passed, 1 failed\n") {
		t.Errorf("the last lines are not the failed packages and the counts:\n%s", got)
	}
}
