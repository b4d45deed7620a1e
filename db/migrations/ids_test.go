package migrations_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/testkit"
)

// TestIdsAreTimeOrdered: migration 103 gives the tables every execution writes many rows of
// time-ordered ids (version 7), so that their indexes grow at one edge; uuid7 puts the clock's
// milliseconds first, so ids taken a millisecond apart sort in the order they were taken.
func TestIdsAreTimeOrdered(t *testing.T) {
	t.Parallel()
	db := testkit.DB(t)
	var defaults []string
	if err := db.Select(&defaults, `SELECT table_name || ' ' || column_default FROM information_schema.columns
		WHERE table_schema = 'public' AND column_name = 'id' AND table_name = ANY ($1) ORDER BY table_name`,
		[]string{"flow_executions", "human_review_assignments", "human_review_tasks", "task_executions", "usage_records"}); err != nil {
		t.Fatal(err)
	}
	want := []string{"flow_executions uuid7()", "human_review_assignments uuid7()", "human_review_tasks uuid7()",
		"task_executions uuid7()", "usage_records uuid7()"}
	if len(defaults) != len(want) {
		t.Fatalf("defaults %q, want %q", defaults, want)
	}
	for i := range want {
		if defaults[i] != want[i] {
			t.Errorf("default %q, want %q", defaults[i], want[i])
		}
	}
	var prev uuid.UUID
	for i := 0; i < 3; i++ {
		var id uuid.UUID
		before := time.Now().Truncate(time.Millisecond)
		if err := db.Get(&id, `SELECT uuid7()`); err != nil {
			t.Fatal(err)
		}
		if id.Version() != 7 || id.Variant() != uuid.RFC4122 {
			t.Fatalf("%s is version %d, variant %s", id, id.Version(), id.Variant())
		}
		sec, nsec := id.Time().UnixTime()
		if at := time.Unix(sec, nsec); at.Before(before.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) {
			t.Errorf("%s carries %s, taken at %s", id, at, before)
		}
		if i > 0 && id.String() <= prev.String() {
			t.Errorf("%s taken after %s sorts before it", id, prev)
		}
		prev = id
		time.Sleep(2 * time.Millisecond)
	}
}
