package exports_test

import (
	"testing"

	"github.com/loopwork/loopwork/internal/bench"
)

// TestExportSurvivesKill9: a smaller run of ExportThroughKill9 (make bench runs it with 1,000,000 jobs).
func TestExportSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	t.Parallel()
	took, atKill := bench.ExportThroughKill9(t, 200_000)
	t.Logf("200,000 jobs: %d written at the last progress report before the kill, the file whole and each job once %.1f s after the request", atKill, took.Seconds())
}
