package jobs

// A job that starts its flow's execution is written after the start, where the execution stands then.

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// live are the execution's statuses a job is written in; at any other (it ended within its start) the
// job is written IN_PROGRESS, and job_follow, the trigger's body, moves it on with the output, error and
// score that go with it.
const live = `('queued', 'running', 'in_progress', 'awaiting_input')`

// standing is where a job written after its execution f (with js, job_state(f)) starts: its status and
// processing state, whether its execution has moved (so it gets the history below), and whether it has
// ended within its start (so job_follow moves it on after the insert).
const standing = `CASE WHEN f.status IN ` + live + ` THEN js.status ELSE 'IN_PROGRESS' END AS status,
		    CASE WHEN f.status IN ` + live + ` THEN js.processing_state ELSE 'PROCESSING' END AS processing,
		    f.status <> 'queued' AS moved, f.status NOT IN ` + live + ` AS ended`

// startedHistory is the history such a job, once inserted (job), would have had following each move of its
// execution: through IN_PROGRESS to where it stands; rows e (o, event, f, t), kept where e.f <> e.t.
const startedHistory = `(VALUES
		      (1, 'STATUS_CHANGED', 'SCHEDULED', 'IN_PROGRESS'), (2, 'PROCESSING_STATE_CHANGED', 'QUEUED', 'PROCESSING'),
		      (3, 'STATUS_CHANGED', 'IN_PROGRESS', job.status), (4, 'PROCESSING_STATE_CHANGED', 'PROCESSING', job.processing_state))
		    AS e (o, event, f, t)`

// startJob starts the execution of a job to an app bound to a flow, then writes the job, in tx. The
// start may move the execution several times (its first tasks run in it, see run.Prepared); the job,
// written last, takes the execution's state once, with the history it would have had following each
// move (through IN_PROGRESS), rather than being updated at each move (migration 00102). Its id is taken
// first, for the execution to name it; the execution's reference to it is checked at commit.
func (s *Service) startJob(ctx context.Context, tx *sqlx.Tx, g *access.Grant, p *auth.Principal, sub submission, number int, out *v1api.JobSubmitted) (*run.Started, error) {
	// The trigger that moves a job with its execution has nothing to move yet: it is turned off for
	// the start, and on again in the statement that writes the job.
	var job int64
	if err := tx.GetContext(ctx, &job, `SELECT nextval(pg_get_serial_sequence('jobs', 'id'))
		FROM (SELECT set_config('loopwork.jobs_follow', 'off', true)) AS off`); err != nil {
		return nil, err
	}
	exec, st, err := s.start(ctx, tx, g, p, job, sub, number)
	out.FlowExecutionId = &exec
	if err != nil {
		return st, err
	}
	if ok, err := insertStarted(ctx, tx, g, p, sub, job, true, out); ok || err != nil {
		return st, err
	}
	if err := credits.Reserve(ctx, tx, g.App.OrganizationID, 1); err != nil {
		return st, err
	}
	if _, err := insertStarted(ctx, tx, g, p, sub, job, false, out); err != nil {
		return st, err
	}
	_, err = credits.Record(ctx, tx, credits.Usage{OrganizationID: g.App.OrganizationID,
		ProductID: credits.JobSubmissionProduct, JobID: &out.Id, Amount: 1, CreatedBy: p.Actor()})
	return st, err
}

// insertStarted writes job (the id taken for it) where its execution stands, with its history; paid, it
// also checks the balance is comfortable and spends the credit, writing nothing and reporting false
// when it is not (see insertPaid). An execution that already ended moves its job after the insert
// (job_follow), as the trigger would have.
func insertStarted(ctx context.Context, tx *sqlx.Tx, g *access.Grant, p *auth.Principal, sub submission, job int64, paid bool, out *v1api.JobSubmitted) (bool, error) {
	check, pay := "", ""
	if paid {
		check = ` WHERE ` + credits.RemainingSQL("$1") + ` >= $14`
		pay = `, usage AS (INSERT INTO usage_records (organization_id, product_id, job_id, amount, created_by)
		  SELECT $1, $15, job.id, 1, $16 FROM job),
		spend AS (` + credits.ConsumeSQL("$1::uuid", "job") + `)`
	}
	args := []any{g.App.OrganizationID, g.App.ID, job, *sub.execution, sub.input, sub.metadata, pq.StringArray(sub.tags),
		sub.batchID, sub.priority, authorID(p), sub.deadline, sub.ttlSeconds, sub.onboarding}
	if paid {
		args = append(args, credits.Comfortable+1, credits.JobSubmissionProduct, p.Actor())
	}
	var ended bool
	err := tx.QueryRowxContext(ctx, `
		WITH x AS (
		  SELECT `+standing+`
		  FROM flow_executions f, job_state(f) js WHERE f.id = $4
		), job AS (
		  INSERT INTO jobs (id, organization_id, app_id, status, processing_state, input, metadata, tags, batch_id,
		    priority, created_by, expires_at, onboarding_code, flow_execution_id) OVERRIDING SYSTEM VALUE
		  SELECT $3, $1, $2, x.status, x.processing, $5, $6, $7, $8, $9, $10,
		    coalesce($11::timestamptz, now() + make_interval(secs => $12::int)), $13, $4 FROM x`+check+`
		  RETURNING id, app_id, organization_id, status, processing_state, created_at, expires_at
		), history AS (
		  INSERT INTO job_history (job_id, app_id, organization_id, event, from_status, to_status, details)
		  SELECT job.id, job.app_id, job.organization_id, e.event, e.f, e.t, jsonb_build_object('flow_execution_id', $4::uuid)
		  FROM job, x, LATERAL `+startedHistory+`
		  WHERE x.moved AND e.f <> e.t ORDER BY e.o
		)`+pay+`
		SELECT job.id, job.created_at, job.expires_at, x.ended FROM job, x
		WHERE set_config('loopwork.jobs_follow', '', true) IS NOT NULL`, args...).Scan(&out.Id, &out.CreatedAt, &out.ExpiresAt, &ended)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if ended {
		_, err = tx.ExecContext(ctx, `SELECT job_follow(x) FROM flow_executions x WHERE x.id = $1`, *sub.execution)
	}
	return true, err
}
