// Command testreport runs `go test -json …` (its arguments) and prints what plain `go test` prints — the
// output of failing tests, each package's ok or FAIL line — then the ten slowest tests, then a
// "N passed, N failed" line, and exits with go test's status. A run of the whole suite thus says where its
// time went without a second run, and its last lines remain a summary that tools reading them expect.
//
//	testreport go test -json -count=1 ./...
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: testreport go test -json [flags] [packages]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
	r := newReport(os.Stdout)
	if err := r.read(out); err != nil {
		fmt.Fprintln(os.Stderr, "testreport: reading go test's output:", err)
	}
	err = cmd.Wait()
	r.summary(10)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		os.Exit(exit.ExitCode())
	case err != nil:
		fmt.Fprintln(os.Stderr, "testreport:", err)
		os.Exit(2)
	}
}

// read consumes go test's JSON stream line by line; a line that is not an event (a build error printed
// before any test ran, say) is passed on as it is.
func (r *report) read(in io.Reader) error {
	br := bufio.NewReaderSize(in, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			r.line(line)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// event is one record of `go test -json` (cmd/test2json's TestEvent).
type event struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string
	Test       string
	Elapsed    float64
	Output     string
}
