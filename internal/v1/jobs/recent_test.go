package jobs

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestRecentCountsExpire: a count is kept for the rest of its minute, measured from when it was counted.
func TestRecentCountsExpire(t *testing.T) {
	r := newRecentCounts()
	app := uuid.New()
	at := time.Now()
	r.put(app, "old", map[string]int64{"SCHEDULED": 1}, at, cacheTTL-30*time.Millisecond)
	r.put(app, "new", map[string]int64{"SCHEDULED": 2}, at, 0)
	if per, got, ok := r.get(app, "old"); !ok || per["SCHEDULED"] != 1 || !got.Equal(at) {
		t.Fatalf("a count 30 ms short of a minute old is gone: %v %v %v", per, got, ok)
	}
	if _, _, ok := r.get(uuid.New(), "old"); ok {
		t.Fatal("another app's count answered")
	}
	time.Sleep(50 * time.Millisecond)
	if _, _, ok := r.get(app, "old"); ok {
		t.Fatal("a count over a minute old answered")
	}
	if _, _, ok := r.get(app, "new"); !ok {
		t.Fatal("a fresh count is gone")
	}
}
