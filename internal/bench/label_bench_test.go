package bench_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/bench"
	"github.com/loopwork/loopwork/internal/testkit"
)

// labelLease measures GET /v1/apps/{app}/label by 16 LABELER workers of the seeded app, as they use it:
// each measured request leases the next job of the queue (highest priority, then oldest) that nobody
// holds, and the worker then labels that job (PUT …/response, not measured) before asking again. The
// label releases the job, so every measured request is a new lease, never the renewal of a held one,
// and the head of the queue moves on as it does when people work through it.
func labelLease(b *testing.B, env *testkit.Env, base client, org, app uuid.UUID) {
	appPath := "/v1/apps/" + app.String()
	// Labeling is on by default; the settings are stated here because the measurement depends on them:
	// no review sampling, so a label completes the job and takes it out of the queue.
	env.ChangeAccess(b, `UPDATE apps SET settings = settings || '{"labeling_enabled": true, "review_rate": 0}' WHERE id = $1`, app)
	workers := make([]client, clients)
	ids := make([]uuid.UUID, clients)
	for i := range workers {
		w := env.KeyCaller(b, org, auth.RoleAppUser)
		workers[i] = client{t: b, http: base.http, base: base.base, token: w.Token}
		ids[i] = w.UserID
	}
	env.ChangeAccess(b, `INSERT INTO app_workers (app_id, user_id, organization_id, role)
		SELECT $1, u, $2, 'LABELER' FROM unnest($3::uuid[]) u`, app, org, pq.Array(ids))
	var waiting int
	if err := env.DB.Get(&waiting, `SELECT count(*) FROM jobs WHERE app_id = $1 AND status IN ('SCHEDULED', 'SUSPENDED')`, app); err != nil {
		b.Fatal(err)
	}

	leased := make([][]int64, clients) // per client: each one's own goroutine appends
	label := []byte(`{"response": {"label": "bench"}}`)
	lease := func(c int) (time.Duration, error) {
		w := workers[c]
		start := time.Now()
		status, body, err := w.do("GET", appPath+"/label", nil)
		took := time.Since(start)
		if err != nil {
			return took, err
		}
		if status != 200 {
			return took, fmt.Errorf("label: %d %s", status, body)
		}
		var got struct {
			Job struct {
				ID int64 `json:"id"`
			} `json:"job"`
		}
		if err := json.Unmarshal(body, &got); err != nil {
			return took, err
		}
		leased[c] = append(leased[c], got.Job.ID)
		return took, w.expect(200)("PUT", fmt.Sprintf("%s/jobs/%d/response", appPath, got.Job.ID), label)
	}
	bench.RunTimed(clients, warmUp, lease)
	r := bench.RunTimed(clients, loadTime, lease)
	reportLoad(b, fmt.Sprintf("label lease, 16 labelers (queue of %d)", waiting), r)
	b.ReportMetric(bench.Ms(r.P50), "p50-ms")
	b.ReportMetric(bench.Ms(r.P99), "p99-ms")

	// Every lease was a different job: no renewal was measured and no two workers got the same job.
	seen := map[int64]bool{}
	for _, mine := range leased {
		for _, id := range mine {
			if seen[id] {
				b.Errorf("job %d leased twice", id)
			}
			seen[id] = true
		}
	}
}
