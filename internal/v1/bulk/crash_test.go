package bulk_test

import (
	"testing"

	"github.com/loopwork/loopwork/internal/bench"
)

// TestCancelSurvivesKill9: a smaller run of CancelThroughKill9 (make bench runs it with 1,000,000 jobs).
func TestCancelSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	t.Parallel()
	took, atKill := bench.CancelThroughKill9(t, 20_000)
	t.Logf("20,000 jobs: %d canceled at the kill, all after the restart, %.1f s in all", atKill, took.Seconds())
}
