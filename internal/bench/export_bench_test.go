package bench_test

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/bench"
)

// BenchmarkExport exports 1,000,000 jobs (BENCH_JOBS=n for fewer) to CSV through a server process, and
// in the same run has psql \copy write the same rows and columns; it reports rows per second of both,
// their ratio (goal ≥ 0.8), and how much the server's resident memory grew while it wrote the file
// (goal ≤ 100 MB). Then the flattened CSV and JSON Lines, each against the same \copy, and the export
// through a SIGKILL.
func BenchmarkExport(b *testing.B) {
	n := 1_000_000
	if v := os.Getenv("BENCH_JOBS"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	s := bench.NewExportSetup(b, n)
	p := s.Serve(b)
	copyTook := psqlCopy(b, s.DSN(), s.App().String())
	report(b, "psql \\copy of the nested CSV's rows and columns", "%.2f s: %.0f rows/s", copyTook.Seconds(), float64(n)/copyTook.Seconds())
	for _, c := range []struct{ name, query string }{
		{"CSV, nested input and response as JSON text", "csv=true&flattenedOutput=false"},
		{"CSV, flattened (the default columns)", "csv=true"},
		{"JSON Lines, flattened", ""},
	} {
		before := p.RSS()
		peak := before
		began := time.Now()
		id := s.Start(b, p, c.query)
		for {
			if r := p.RSS(); r > peak {
				peak = r
			}
			st := s.State(b, id)
			if st.Status == "SUCCEEDED" {
				break
			}
			if st.Status == "FAILED" {
				b.Fatalf("export failed")
			}
			time.Sleep(20 * time.Millisecond)
		}
		took := time.Since(began)
		report(b, "export "+c.name, "%d jobs in %.2f s: %.0f rows/s, RSS +%.1f MB (%.0f → %.0f MB)", n, took.Seconds(),
			float64(n)/took.Seconds(), float64(peak-before)/(1<<20), float64(before)/(1<<20), float64(peak)/(1<<20))
		report(b, "  export / psql \\copy (rows per second)", "%.2f", copyTook.Seconds()/took.Seconds())
	}
	took, atKill := bench.ExportThroughKill9(b, n)
	report(b, "export through kill -9 (CSV with history)", "%d jobs: %d written at the kill, whole and each once %.1f s after the request",
		n, atKill, took.Seconds())
}

// psqlCopy writes the columns the nested CSV export has, in the same order and id order, with psql.
func psqlCopy(b *testing.B, dsn, app string) time.Duration {
	out := b.TempDir() + "/copy.csv"
	q := `\copy (SELECT j.id, j.status, j.batch_id, j.tags, j.created_at, j.completed_at, j.score, j.trust_score, j.correct,
		j.reviewed, j.edited, j.relabeled, j.error, j.metadata, j.input, j.response FROM jobs j
		WHERE j.app_id = '` + app + `' ORDER BY j.id) TO '` + out + `' WITH (FORMAT csv, HEADER)`
	began := time.Now()
	cmd := exec.Command("psql", dsn, "-q", "-c", q)
	if o, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("psql: %v %s", err, o)
	}
	return time.Since(began)
}
