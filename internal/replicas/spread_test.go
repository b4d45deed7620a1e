package replicas_test

import (
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
)

// waitCompleted waits until n executions have completed.
func waitCompleted(t *testing.T, db *sqlx.DB, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var done, all int
		if err := db.QueryRow(`SELECT count(*) FILTER (WHERE status = 'completed'), count(*) FROM flow_executions`).
			Scan(&done, &all); err != nil {
			t.Fatal(err)
		}
		if all != n {
			t.Fatalf("%d executions stored, %d answered 201", all, n)
		}
		if done == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d executions completed after %s", done, n, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// spread checks that River's jobs ran on every process before the kill and on the two survivors after
// it. River records the client (one per process) that worked each attempt in attempted_by.
func spread(t *testing.T, db *sqlx.DB, killedAt time.Time) {
	t.Helper()
	var before, after int
	if err := db.QueryRow(`
		SELECT count(DISTINCT w) FILTER (WHERE j.attempted_at < $1), count(DISTINCT w) FILTER (WHERE j.attempted_at > $1)
		FROM river_job j, unnest(j.attempted_by) w WHERE j.state = 'completed'`, killedAt).Scan(&before, &after); err != nil {
		t.Fatal(err)
	}
	t.Logf("River jobs were worked by %d processes before the kill and %d after", before, after)
	if before != 3 || after != 2 {
		t.Errorf("background work ran on %d processes before the kill (want 3) and %d after (want 2)", before, after)
	}
	// What the killed process held: River jobs it was working when it died (River still counts them as
	// running), and the stand-ins the engine's sweep queued for them.
	var held, standIns int
	if err := db.QueryRow(`
		SELECT (SELECT count(*) FROM river_job WHERE state = 'running'),
		       (SELECT count(*) FROM river_job WHERE kind = 'flow_task' AND (args->>'stuck') IS NOT NULL)`).
		Scan(&held, &standIns); err != nil {
		t.Fatal(err)
	}
	t.Logf("the killed process held %d River jobs; the sweep queued %d stand-ins", held, standIns)
}

// workedBy is how many processes have completed River jobs so far.
func workedBy(db *sqlx.DB) int {
	var n int
	_ = db.Get(&n, `SELECT count(DISTINCT w) FROM river_job j, unnest(j.attempted_by) w WHERE j.state = 'completed'`)
	return n
}
