package reviewrule_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/engine/reviewrule"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

// world is one organization with a flow whose executions each wait for at most one review.
type world struct {
	db   *sqlx.DB
	org  uuid.UUID
	flow uuid.UUID
}

func newWorld(t *testing.T) world {
	t.Helper()
	w := world{db: testkit.DB(t)}
	if err := w.db.Get(&w.org, `INSERT INTO organizations (name) VALUES ('rule') RETURNING id`); err != nil {
		t.Fatal(err)
	}
	if err := w.db.Get(&w.flow, `WITH f AS (INSERT INTO flows (organization_id) VALUES ($1) RETURNING id)
		INSERT INTO flow_versions (flow_id, version, organization_id, display_name, definition)
		SELECT id, 1, $1, 'f', '{}' FROM f RETURNING flow_id`, w.org); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w world) user(t *testing.T) uuid.UUID {
	t.Helper()
	_, id := testkit.SeedUser(t, w.db, w.org, auth.RoleAppUser, uuid.NewString()+"@rule.test")
	return id
}

// execution starts an execution; with review set it waits for a review assigned to the users given,
// named (the task's assigned_users) or, when named is false, defaulted.
func (w world) execution(t *testing.T, review bool, named bool, users ...uuid.UUID) (exec, id uuid.UUID) {
	t.Helper()
	if err := w.db.Get(&exec, `INSERT INTO flow_executions (organization_id, flow_id, flow_version, status, run_number)
		VALUES ($1, $2, 1, 'awaiting_input', 1) RETURNING id`, w.org, w.flow); err != nil {
		t.Fatal(err)
	}
	if !review {
		return exec, uuid.Nil
	}
	if err := w.db.Get(&id, `INSERT INTO human_review_tasks (organization_id, flow_execution_id, target_task_name,
		target_task_execution_idx, source_task_name, source_task_execution_idx, users_named)
		VALUES ($1, $2, 'check', 0, 'check', 0, $3) RETURNING id`, w.org, exec, named); err != nil {
		t.Fatal(err)
	}
	for _, u := range users {
		if _, err := w.db.Exec(`INSERT INTO human_review_assignments (organization_id, human_review_task_id, user_id)
			VALUES ($1, $2, $3)`, w.org, id, u); err != nil {
			t.Fatal(err)
		}
	}
	return exec, id
}

// TestOneRule: a review whose users were named is theirs and the administrators' to complete, through
// /api and through a /v1 label alike; one whose users were defaulted is open to the /v1 app's labelers
// too, and on /api still only to its assigned users and administrators; a job whose execution waits for
// no review is open to every labeler.
func TestOneRule(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	assigned, other := w.user(t), w.user(t)
	namedExec, named := w.execution(t, true, true, assigned)
	defaultedExec, defaulted := w.execution(t, true, false, assigned)
	noneExec, _ := w.execution(t, false, false)

	callers := map[string]reviewrule.Caller{
		"assigned on /api":      {User: assigned},
		"assigned labeler":      {User: assigned, Worker: true},
		"other on /api":         {User: other},
		"other labeler":         {User: other, Worker: true},
		"administrator on /api": {User: other, Admin: true},
		"administrator labeler": {User: other, Admin: true, Worker: true},
	}
	want := map[string][3]bool{ // named, defaulted, no review
		"assigned on /api":      {true, true, false},
		"assigned labeler":      {true, true, true},
		"other on /api":         {false, false, false},
		"other labeler":         {false, true, true},
		"administrator on /api": {true, true, true},
		"administrator labeler": {true, true, true},
	}
	for name, c := range callers {
		var got [3]bool
		for i, review := range []uuid.UUID{named, defaulted} {
			ok, err := reviewrule.MayComplete(ctx, w.db, review, c)
			if err != nil {
				t.Fatal(err)
			}
			// The /v1 form, through the job's execution, answers the same for its review.
			viaJob, err := reviewrule.MayLabel(ctx, w.db, []uuid.UUID{namedExec, defaultedExec}[i], c)
			if err != nil {
				t.Fatal(err)
			}
			if c.Worker && viaJob != ok {
				t.Errorf("%s: MayComplete %v but MayLabel %v", name, ok, viaJob)
			}
			got[i] = ok
		}
		var err error
		if got[2], err = reviewrule.MayLabel(ctx, w.db, noneExec, c); err != nil {
			t.Fatal(err)
		}
		if got != want[name] {
			t.Errorf("%s may complete (named, defaulted, none) %v, want %v", name, got, want[name])
		}
	}

	// Once the review is completed, the job's execution waits for none: nothing is reserved any more.
	if _, err := w.db.Exec(`UPDATE human_review_tasks SET status = 'completed', completed_at = now() WHERE id = $1`, named); err != nil {
		t.Fatal(err)
	}
	if ok, err := reviewrule.MayLabel(ctx, w.db, namedExec, callers["other labeler"]); err != nil || !ok {
		t.Fatalf("after the review completed: %v, %v", ok, err)
	}
}

// TestAdmin: the administrators of reviews are the roles that administer an organization.
func TestAdmin(t *testing.T) {
	for role, want := range map[auth.Role]bool{auth.RoleOrgAdmin: true, auth.RoleBackoffice: true,
		auth.RoleAppUser: false, auth.RoleIntegration: false} {
		if got := reviewrule.Admin(role); got != want {
			t.Errorf("Admin(%s) = %v", role, got)
		}
		if c := reviewrule.For(&auth.Principal{Role: role}, true); c.Admin != want || !c.Worker {
			t.Errorf("For(%s) = %+v", role, c)
		}
	}
}
