package bench

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/testkit"
)

// CancelThroughKill9 seeds n jobs with executions waiting in the engine, starts a 202 cancel of all of
// them on a real server process, kills the process with SIGKILL once the operation has made progress,
// starts another, and checks that every job and its execution end canceled, once. It returns how long
// the whole cancel took and how many jobs were canceled at the kill.
func CancelThroughKill9(t testing.TB, n int) (time.Duration, int64) {
	bin := testkit.BuildServer(t)
	db := testkit.DB(t)
	dsn := testkit.DSN(t, db)
	token := testkit.SeedCaller(t, db)
	addr := testkit.FreePort(t)
	first := testkit.Serve(t, bin, dsn, addr)
	var flow struct{ ID uuid.UUID }
	testkit.Call(t, first.URL, token, "POST", "/api/flows", json.RawMessage(`{"display_name": "wait", "definition": {"version": 1,
		"tasks": [{"name": "work", "type": "external", "parameters": {"queue": "crash"}}], "edges": []}}`), &flow)
	var org, app uuid.UUID
	if err := db.Get(&org, `SELECT organization_id FROM flows WHERE id = $1`, flow.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&app, `INSERT INTO apps (organization_id, name, api_id) VALUES ($1, 'crash', $2) RETURNING id`, org, flow.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := SeedRunningJobs(context.Background(), db, org, app, flow.ID, "work", n); err != nil {
		t.Fatal(err)
	}

	began := time.Now()
	var op struct {
		OperationID uuid.UUID `json:"operation_id"`
	}
	testkit.Call(t, first.URL, token, "POST", "/v1/apps/"+app.String()+"/cancel", nil, &op) // 202: more than 1,000 jobs
	var atKill int64
	for deadline := time.Now().Add(time.Minute); atKill == 0; time.Sleep(5 * time.Millisecond) {
		if err := db.Get(&atKill, `SELECT count(*) FROM jobs WHERE app_id = $1 AND status = 'CANCELED'`, app); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cancel made no progress in a minute:\n%s", first.Logs())
		}
	}
	first.Kill()
	if atKill >= int64(n) {
		t.Fatalf("every job was canceled before the kill: nothing was tested")
	}
	testkit.Serve(t, bin, dsn, addr)
	for deadline := time.Now().Add(10 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var status string
		if err := db.Get(&status, `SELECT status FROM bulk_operations WHERE id = $1`, op.OperationID); err != nil {
			t.Fatal(err)
		}
		if status == "SUCCEEDED" {
			break
		}
		if status == "FAILED" || time.Now().After(deadline) {
			t.Fatalf("the operation is %s", status)
		}
	}
	took := time.Since(began)
	wantCanceledOnce(t, db, app, n)
	return took, atKill
}

func wantCanceledOnce(t testing.TB, db *sqlx.DB, app uuid.UUID, n int) {
	t.Helper()
	var c struct {
		Canceled int `db:"canceled"`
		Stopped  int `db:"stopped"`
		Waiting  int `db:"waiting"`
		Twice    int `db:"twice"`
	}
	if err := db.Get(&c, `SELECT
		(SELECT count(*) FROM jobs WHERE app_id = $1 AND status = 'CANCELED') AS canceled,
		(SELECT count(*) FROM flow_executions WHERE job_app_id = $1 AND status = 'failed' AND error->>'type' = 'stopped') AS stopped,
		(SELECT count(*) FROM task_executions t JOIN flow_executions x ON x.id = t.flow_execution_id
		 WHERE x.job_app_id = $1 AND t.status IN ('queued', 'running')) AS waiting,
		(SELECT count(*) FROM (SELECT job_id FROM job_history WHERE app_id = $1 AND event = 'STATUS_CHANGED' AND to_status = 'CANCELED'
		 GROUP BY job_id HAVING count(*) > 1) d) AS twice`, app); err != nil {
		t.Fatal(err)
	}
	if c.Canceled != n || c.Stopped != n || c.Waiting != 0 || c.Twice != 0 {
		t.Fatalf("after the restart: %d of %d jobs canceled, %d executions stopped, %d attempts still waiting, %d jobs canceled twice",
			c.Canceled, n, c.Stopped, c.Waiting, c.Twice)
	}
}
