package jobs_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
)

// reviewedDef reshapes a job's input, waits for a person, then reshapes the answer.
const reviewedDef = `{"version": 1, "tasks": [
	{"name": "prepare", "type": "transform", "parameters": {"expression": "{text: .text}"}},
	{"name": "check", "type": "human_review"},
	{"name": "finish", "type": "transform", "parameters": {"expression": "."}}],
	"edges": [{"source": "prepare", "target": "check"}, {"source": "check", "target": "finish"}]}`

// TestStartTogether: submissions to an app bound to a flow sent at once are started in batches (one
// transaction for several, see submitStarted); each job is where a job submitted alone is (SUSPENDED,
// with the same history, its execution waiting for its review with its first task's output), with its
// own execution and run number, and the ledger holds one credit each. An organization whose balance is
// not comfortable is started a job at a time instead, on the careful path: its jobs beyond its credits
// are refused with 402 and cost nothing.
func TestStartTogether(t *testing.T) {
	t.Parallel()
	f := setup(t)
	// A review that names its users, reviews a task named by review_of, has instructions and a
	// timeout, and needs two approvals.
	named := strings.Replace(reviewedDef, `{"name": "check", "type": "human_review"}`, fmt.Sprintf(`{"name": "check",
		"type": "human_review", "parameters": {"assigned_users": [%q, %q], "review_of": "prepare", "instructions": "look",
		"timeout_seconds": 3600, "on_timeout": "approve", "required_approvals": 2}}`, f.admin.UserID,
		f.env.User(t, f.org, auth.RoleAppUser).UserID), 1)
	for _, def := range []string{reviewedDef, named} {
		startTogether(t, f, f.newApp(t, appOpts{def: def}), def == named)
	}
	var usage int64
	_ = f.env.DB.Get(&usage, `SELECT count(DISTINCT job_id) FROM usage_records WHERE organization_id = $1`, f.org)
	if b, _ := credits.Get(ctx, f.env.DB, f.org); usage != 2*33 || b.Consumed != 2*33 {
		t.Fatalf("%d usage records, %d consumed; want %d", usage, b.Consumed, 2*33)
	}
	startPoor(t, f)
}

// startTogether sends submissions to app at once and compares each job with one submitted alone.
func startTogether(t *testing.T, f *fx, app uuid.UUID, expires bool) {
	// Input and metadata past paidAlone: this one is started alone, on the careful path.
	alone := f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{"text": "hello", "pad": strings.Repeat("x", 70_000)})})
	f.waitJob(t, app, alone, v1api.JobStatusSUSPENDED)
	want := f.events(t, alone)

	const n = 32
	jobs := make(chan int64, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := f.admin.V1.SubmitJobWithResponse(ctx, app, nil, v1api.JobInput{Input: doc(map[string]any{"text": "hello", "n": i})})
			if err != nil || res.JSON201 == nil || res.JSON201.FlowExecutionId == nil {
				t.Errorf("submission %d: %v %s", i, err, res.Body)
				return
			}
			var got int
			if err := f.env.DB.Get(&got, `SELECT (j.input ->> 'n')::int FROM jobs j JOIN flow_executions x ON x.id = j.flow_execution_id
				WHERE j.id = $1 AND x.id = $2 AND (x.input ->> 'n')::int = $3`, res.JSON201.Id, *res.JSON201.FlowExecutionId, i); err != nil || got != i {
				t.Errorf("submission %d answered job %d, which holds %d (%v)", i, res.JSON201.Id, got, err)
			}
			jobs <- res.JSON201.Id
		}()
	}
	wg.Wait()
	close(jobs)
	review := func(job int64) string {
		var s string
		if err := f.env.DB.Get(&s, `SELECT concat_ws(' | ', r.target_task_name, r.target_task_execution_idx, r.source_task_name,
			r.source_task_execution_idx, r.status, r.task_metadata::text, r.required_approvals, r.holds_attempt, r.users_named,
			r.modified_by, (SELECT string_agg(a.user_id::text || ':' || a.status, ',' ORDER BY a.created_at)
				FROM human_review_assignments a WHERE a.human_review_task_id = r.id),
			(SELECT string_agg(t.task_name || ':' || t.status || ':' || (t.timeout_at IS NULL), ',' ORDER BY t.task_name)
				FROM task_executions t WHERE t.flow_execution_id = r.flow_execution_id))
			FROM human_review_tasks r JOIN jobs j ON j.flow_execution_id = r.flow_execution_id WHERE j.id = $1`, job); err != nil {
			t.Fatal(err)
		}
		return s
	}
	wantReview := review(alone)
	for id := range jobs {
		// A job whose first task found its organization's executors busy was started without it run
		// ahead: it runs once the start commits, and the job reaches its review a moment later.
		f.waitJob(t, app, id, v1api.JobStatusSUSPENDED)
		if got := f.events(t, id); got != want {
			t.Errorf("job %d: %s\nalone: %s", id, got, want)
		}
		if got := review(id); got != wantReview {
			t.Errorf("job %d's review: %s\nalone: %s", id, got, wantReview)
		}
	}
	var s struct {
		Jobs, Suspended, Numbers, Reviews, Commits int64
	}
	if err := f.env.DB.QueryRowx(`SELECT count(*), count(*) FILTER (WHERE j.status = 'SUSPENDED' AND x.status = 'awaiting_input'),
		count(DISTINCT x.run_number), (SELECT count(*) FROM human_review_tasks r JOIN jobs k ON k.flow_execution_id = r.flow_execution_id
			WHERE k.app_id = $1 AND r.status = 'pending'), count(DISTINCT j.xmin::text)
		FROM jobs j JOIN flow_executions x ON x.id = j.flow_execution_id WHERE j.app_id = $1`, app).
		Scan(&s.Jobs, &s.Suspended, &s.Numbers, &s.Reviews, &s.Commits); err != nil {
		t.Fatal(err)
	}
	if s.Jobs != n+1 || s.Suspended != n+1 || s.Numbers != n+1 || s.Reviews != n+1 {
		t.Fatalf("%+v; want %d of each", s, n+1)
	}
	if s.Commits >= n+1 {
		t.Fatalf("%d jobs in %d transactions: none was started with another", s.Jobs, s.Commits)
	}
	var timeouts int
	_ = f.env.DB.Get(&timeouts, `SELECT count(*) FROM river_job WHERE kind = 'human_review_timeout' AND args ->> 'review' IN (
		SELECT r.id::text FROM human_review_tasks r JOIN jobs k ON k.flow_execution_id = r.flow_execution_id WHERE k.app_id = $1)`, app)
	if expires != (timeouts == n+1) || (!expires && timeouts != 0) {
		t.Fatalf("%d timeout jobs for %d reviews that expire", timeouts, n+1)
	}
}

// startPoor: an organization near the end of its credits: every batch it is in takes the careful path.
func startPoor(t *testing.T, f *fx) {
	var wg sync.WaitGroup
	poor := f.env.Org(t)
	if err := credits.Grant(ctx, f.env.DB, poor, 10); err != nil {
		t.Fatal(err)
	}
	poorApp := f.newApp(t, appOpts{org: poor, def: reviewedDef})
	caller := f.env.KeyCaller(t, poor, auth.RoleOrgAdmin)
	var refused, accepted sync.Map
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := caller.V1.SubmitJobWithResponse(ctx, poorApp, nil, v1api.JobInput{Input: doc(map[string]any{"text": "x"})})
			switch {
			case err != nil:
				t.Error(err)
			case res.StatusCode() == 402:
				refused.Store(i, true)
			case res.JSON201 != nil:
				accepted.Store(res.JSON201.Id, true)
			default:
				t.Errorf("submission %d: %d %s", i, res.StatusCode(), res.Body)
			}
		}()
	}
	wg.Wait()
	count := func(m *sync.Map) (n int) {
		m.Range(func(any, any) bool { n++; return true })
		return n
	}
	pb, _ := credits.Get(ctx, f.env.DB, poor)
	var execs int
	_ = f.env.DB.Get(&execs, `SELECT count(*) FROM flow_executions WHERE organization_id = $1`, poor)
	if count(&accepted) != 10 || count(&refused) != 6 || pb.Consumed != 10 || execs != 10 {
		t.Fatalf("%d accepted, %d refused, %d consumed, %d executions; want 10, 6, 10, 10", count(&accepted), count(&refused), pb.Consumed, execs)
	}
}

// TestStartTogetherRunsTheCurrentVersion: a submission started with others takes the version of its
// flow the process saw last; once another version is the one to run, the batch's statement refuses
// the old one, and the job is started again with the version read anew (its first task run ahead on
// that version).
func TestStartTogetherRunsTheCurrentVersion(t *testing.T) {
	t.Parallel()
	f := setup(t)
	app := f.newApp(t, appOpts{def: reviewedDef})
	first := f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{"text": "hello"})})
	if _, err := f.env.DB.Exec(`INSERT INTO flow_versions (flow_id, version, organization_id, display_name, definition, valid, status)
		SELECT flow_id, version + 1, organization_id, display_name, replace(definition::text, '{text: .text}', '{text: .text, v: 2}')::jsonb,
			true, 'published' FROM flow_versions WHERE flow_id = (SELECT api_id FROM apps WHERE id = $1) ORDER BY version DESC LIMIT 1`, app); err != nil {
		t.Fatal(err)
	}
	second := f.submit(t, app, v1api.JobInput{Input: doc(map[string]any{"text": "hello"})})
	var versions []string
	if err := f.env.DB.Select(&versions, `SELECT x.flow_version || ':' || coalesce(t.output ->> 'v', '-') FROM jobs j
		JOIN flow_executions x ON x.id = j.flow_execution_id
		JOIN task_executions t ON t.flow_execution_id = x.id AND t.task_name = 'prepare' WHERE j.id IN ($1, $2) ORDER BY j.id`,
		first, second); err != nil {
		t.Fatal(err)
	}
	if len(versions) != 2 || versions[0] != "1:-" || versions[1] != "2:2" {
		t.Fatalf("versions run and first outputs %v, want [1:- 2:2]", versions)
	}
}
