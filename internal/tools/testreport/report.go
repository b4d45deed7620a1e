package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// report turns events into plain go test output. Output is held per test and per package until the
// outcome is known: a passing test's output is dropped, as go test drops it without -v, and a failing
// one's is printed whole.
type report struct {
	w                       io.Writer
	held                    map[string][]string // by package + "\x00" + test ("" for the package itself)
	slow                    []timing
	passed, failed, skipped int
	failedPkgs              []string
}

type timing struct {
	pkg, test string
	seconds   float64
}

func newReport(w io.Writer) *report { return &report{w: w, held: map[string][]string{}} }

func (r *report) line(raw []byte) {
	var e event
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &e) != nil || e.Action == "" {
		fmt.Fprint(r.w, string(raw))
		return
	}
	key := e.Package + "\x00" + e.Test
	switch e.Action {
	case "build-output":
		fmt.Fprint(r.w, e.Output)
	case "output":
		r.held[key] = append(r.held[key], e.Output)
	case "pass", "fail", "skip":
		if e.Test == "" {
			r.packageDone(e)
		} else {
			r.testDone(e, key)
		}
	}
}

func (r *report) testDone(e event, key string) {
	switch e.Action {
	case "pass":
		r.passed++
	case "skip":
		r.skipped++
	case "fail":
		r.failed++
		r.flush(key)
	}
	delete(r.held, key)
	if !strings.Contains(e.Test, "/") && e.Action != "skip" {
		r.slow = append(r.slow, timing{e.Package, e.Test, e.Elapsed})
	}
}

// packageDone prints a package's closing line; for a failed package, everything it printed outside its
// tests and the output of tests that never finished (a panic, a timeout) come first.
func (r *report) packageDone(e event) {
	prefix := e.Package + "\x00"
	if e.Action == "fail" {
		r.failedPkgs = append(r.failedPkgs, e.Package)
		for key := range r.held {
			if strings.HasPrefix(key, prefix) && key != prefix {
				r.flush(key)
			}
		}
		r.flush(prefix)
	} else {
		for _, l := range r.held[prefix] {
			if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "?   ") || strings.HasPrefix(l, "coverage:") {
				fmt.Fprint(r.w, l)
			}
		}
	}
	for key := range r.held {
		if strings.HasPrefix(key, prefix) {
			delete(r.held, key)
		}
	}
}

// flush prints what a test or package printed, without the "=== RUN"-style lines that go test shows only
// with -v (which -json implies).
func (r *report) flush(key string) {
	for _, l := range r.held[key] {
		if !strings.HasPrefix(l, "=== ") {
			fmt.Fprint(r.w, l)
		}
	}
	delete(r.held, key)
}

// summary prints the n slowest top-level tests, the failed packages again (their lines may be far up),
// and the counts as the last line.
func (r *report) summary(n int) {
	sort.SliceStable(r.slow, func(i, j int) bool { return r.slow[i].seconds > r.slow[j].seconds })
	if len(r.slow) > n {
		r.slow = r.slow[:n]
	}
	if len(r.slow) > 0 {
		fmt.Fprintf(r.w, "\nThe %d slowest tests:\n", len(r.slow))
		for _, s := range r.slow {
			fmt.Fprintf(r.w, "%8.2fs  %s %s\n", s.seconds, s.test, s.pkg)
		}
		fmt.Fprintln(r.w)
	}
	for _, p := range r.failedPkgs {
		fmt.Fprintf(r.w, "FAIL\t%s\n", p)
	}
	fmt.Fprintf(r.w, "%d passed, %d failed\n", r.passed, r.failed)
}
