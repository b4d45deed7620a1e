package jobs

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/counts"
	"github.com/loopwork/loopwork/internal/v1/filter"
)

// labelQueue describes the jobs of an app that wait for a label.
type labelQueue struct {
	g *access.Grant
	// cond selects them from `jobs j`. It names the statuses literally so that the planner walks the
	// partial index jobs_label_queue_idx (app_id, priority DESC, id) WHERE status IN ('SCHEDULED',
	// 'SUSPENDED'), which is in queueOrder.
	cond     string
	statuses []string
	minutes  int
	enabled  bool
}

// queueOf: SUSPENDED jobs wait for human input; on an app without a flow SCHEDULED ones too, since
// nothing else will ever run them.
func queueOf(g *access.Grant) labelQueue {
	st := g.App.ParsedSettings()
	q := labelQueue{g: g, minutes: st.LabelingLockMinutes, enabled: st.LabelingEnabled,
		cond: "j.status = 'SUSPENDED'", statuses: []string{"SUSPENDED"}}
	if g.App.APIID == nil {
		q.cond, q.statuses = "j.status IN ('SCHEDULED', 'SUSPENDED')", []string{"SCHEDULED", "SUSPENDED"}
	}
	return q
}

func (q labelQueue) waiting(status string) bool {
	for _, s := range q.statuses {
		if s == status {
			return true
		}
	}
	return false
}

// queueOrder is the order in which the queue hands out jobs: the highest priority first (10 is the
// highest), the oldest within a priority. The index of the queue is in this order, so the pick reads
// the first free entries instead of sorting the whole queue.
const queueOrder = "j.priority DESC, j.id"

// lease is a job handed out and its lock.
type lease struct {
	ID        int64     `db:"id"`
	ExpiresAt time.Time `db:"lock_expires_at"`
	// PrevHolder (a username) and PrevExpiry name the worker whose lapsed lock this lease replaces.
	PrevHolder *string    `db:"prev_holder"`
	PrevExpiry *time.Time `db:"prev_lock"`
}

// GetJobToLabel hands the caller the next job to label. The first free job in queueOrder is taken with
// FOR UPDATE SKIP LOCKED, so concurrent workers each lock a different row and never get the same job;
// one worker's own requests are serialised, so asking twice at once does not take two jobs.
func (s *Service) GetJobToLabel(ctx context.Context, req v1api.GetJobToLabelRequestObject) (v1api.GetJobToLabelResponseObject, error) {
	g, p, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler)
	if err != nil {
		return nil, err
	}
	q := queueOf(g)
	dates := filter.Set{CreatedStartDate: req.Params.CreatedStartDate, CreatedEndDate: req.Params.CreatedEndDate}
	var out *v1api.JobCollaborator
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('label:' || $1::text || ':' || $2::text, 0))`,
			g.App.ID, p.UserID); err != nil {
			return err
		}
		var l *lease
		var err error
		if req.Params.JobId != nil {
			l, err = q.takeNamed(ctx, tx, p, *req.Params.JobId)
		} else if q.enabled {
			l, err = q.takeNext(ctx, tx, p, dates)
		}
		if err != nil || l == nil {
			return err
		}
		job, err := fullJob(ctx, tx, g, l.ID)
		if err != nil {
			return err
		}
		left, err := q.remaining(ctx, tx)
		if err != nil {
			return err
		}
		holder := ""
		if job.AssignedTo != nil {
			holder = *job.AssignedTo
		}
		out = &v1api.JobCollaborator{Job: job, AssignedTo: holder, LockExpiresAt: l.ExpiresAt, Remaining: left}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		return v1api.GetJobToLabel204Response{}, nil
	}
	return v1api.GetJobToLabel200JSONResponse(*out), nil
}

// takeNext renews the lock of the job the caller holds, whatever the priority of the free ones, or else
// leases the first free job in queueOrder. A caller holding several (taken by id) renews the first of
// them in the same order.
func (q labelQueue) takeNext(ctx context.Context, tx *sqlx.Tx, p *auth.Principal, dates filter.Set) (*lease, error) {
	var l lease
	err := tx.GetContext(ctx, &l, dbx.CustomPlan+`
		WITH held AS (
		  SELECT j.id FROM jobs j
		  WHERE j.app_id = $1 AND j.organization_id = $2 AND j.assigned_to = $3 AND j.lock_expires_at > now() AND `+q.cond+`
		  ORDER BY `+queueOrder+` LIMIT 1 FOR UPDATE
		)
		UPDATE jobs j SET lock_expires_at = now() + make_interval(mins => $4), updated_at = now()
		FROM held WHERE j.app_id = $1 AND j.id = held.id
		RETURNING j.id, j.lock_expires_at, NULL::text AS prev_holder, NULL::timestamptz AS prev_lock`,
		q.g.App.ID, q.g.App.OrganizationID, p.UserID, q.minutes)
	if err == nil {
		return &l, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	w, err := dates.Compile(4)
	if err != nil {
		return nil, err
	}
	err = tx.GetContext(ctx, &l, dbx.CustomPlan+`
		WITH pick AS (
		  SELECT j.id, j.assigned_to, j.lock_expires_at FROM jobs j
		  WHERE j.app_id = $1 AND j.organization_id = $2 AND `+q.cond+`
		    AND (j.assigned_to IS NULL OR j.lock_expires_at IS NULL OR j.lock_expires_at <= now()) AND `+w.SQL+`
		  ORDER BY `+queueOrder+` LIMIT 1 FOR UPDATE SKIP LOCKED
		)
		UPDATE jobs j SET assigned_to = $3, lock_expires_at = now() + make_interval(mins => $4), updated_at = now()
		FROM pick WHERE j.app_id = $1 AND j.id = pick.id
		RETURNING j.id, j.lock_expires_at, pick.lock_expires_at AS prev_lock,
		          (SELECT u.email::text FROM users u WHERE u.id = pick.assigned_to) AS prev_holder`,
		append([]any{q.g.App.ID, q.g.App.OrganizationID, p.UserID, q.minutes}, w.Args...)...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &l, assigned(ctx, tx, q.g, p, l)
}

// takeNamed answers the job jobId names: leased to the caller when it waits for a label and nobody
// else holds it, answered with its holder when another worker does, and not offered (nil) when it
// does not wait for a label.
func (q labelQueue) takeNamed(ctx context.Context, tx *sqlx.Tx, p *auth.Principal, id int64) (*lease, error) {
	j, err := lockJob(ctx, tx, q.g, id)
	if err != nil {
		return nil, err
	}
	if !q.enabled || !q.waiting(j.Status) {
		return nil, nil
	}
	var l lease
	if j.Held && *j.AssignedTo != p.UserID {
		err := tx.GetContext(ctx, &l, `SELECT id, lock_expires_at FROM jobs WHERE app_id = $2 AND id = $1`, id, q.g.App.ID)
		return &l, err
	}
	err = tx.GetContext(ctx, &l, `
		UPDATE jobs j SET assigned_to = $2, lock_expires_at = now() + make_interval(mins => $3), updated_at = now()
		FROM (SELECT assigned_to, lock_expires_at FROM jobs WHERE app_id = $4 AND id = $1) prev
		WHERE j.app_id = $4 AND j.id = $1
		RETURNING j.id, j.lock_expires_at, prev.lock_expires_at AS prev_lock,
		          (SELECT u.email::text FROM users u WHERE u.id = prev.assigned_to) AS prev_holder`,
		id, p.UserID, q.minutes, q.g.App.ID)
	if err != nil || j.Held {
		return &l, err // a renewal is no new assignment
	}
	return &l, assigned(ctx, tx, q.g, p, l)
}

// assigned records a new lease, after the lapse of the lock it replaces if there was one.
func assigned(ctx context.Context, tx *sqlx.Tx, g *access.Grant, p *auth.Principal, l lease) error {
	var evs []event
	if l.PrevExpiry != nil {
		evs = append(evs, event{Event: "RELEASED", Actor: l.PrevHolder, At: l.PrevExpiry, Details: map[string]any{"reason": "lock expired"}})
	}
	evs = append(evs, event{Event: "ASSIGNED", Actor: HistoryActor(p), Details: map[string]any{"lock_expires_at": l.ExpiresAt}})
	return record(ctx, tx, g.App.OrganizationID, g.App.ID, l.ID, evs...)
}

// remaining counts the other jobs of the app that wait for a label and nobody holds, whatever the
// date range of the request (the contract counts the app's queue). It is the status counters of the
// queue's statuses less the jobs held now (a small partial index), so a queue of a million jobs is not
// walked.
func (q labelQueue) remaining(ctx context.Context, tx *sqlx.Tx) (int64, error) {
	per, err := counts.PerStatus(ctx, tx, q.g.App.ID)
	if err != nil {
		return 0, err
	}
	var held int64
	if err := tx.GetContext(ctx, &held, dbx.CustomPlan+`SELECT count(*) FROM jobs j WHERE j.app_id = $1 AND j.organization_id = $2
		AND j.assigned_to IS NOT NULL AND j.lock_expires_at > now() AND `+q.cond, q.g.App.ID, q.g.App.OrganizationID); err != nil {
		return 0, err
	}
	n := -held
	for _, st := range q.statuses {
		n += per[st]
	}
	return max(n, 0), nil
}
