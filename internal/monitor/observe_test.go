package monitor_test

import (
	"log/slog"
	"testing"

	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/monitor"
)

// TestCountingKeepsKinds: counting an executor's runs does not change where the engine may run it
// (see executors.Kind).
func TestCountingKeepsKinds(t *testing.T) {
	t.Parallel()
	m := monitor.New(nil, slog.New(slog.DiscardHandler))
	set := m.Executors(executors.Set{"transform": executors.Transform(executors.JQ{}),
		"http_request": executors.Unavailable("http_request", "test")})
	if got := executors.KindOf(set["transform"]); got != executors.Computes {
		t.Errorf("transform: kind %d once counted", got)
	}
	if got := executors.KindOf(set["http_request"]); got != executors.Anywhere {
		t.Errorf("http_request: kind %d once counted", got)
	}
}
