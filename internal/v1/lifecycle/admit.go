package lifecycle

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/platform/executions"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/counts"
)

// Admit starts the executions of an app's PENDING jobs, highest priority first and then oldest, while
// the app is ACTIVE, bound to a flow and has room under settings.max_running_jobs: a batch per
// transaction, each job SCHEDULED with its execution in the transaction that starts it. Admissions of
// one app take turns.
func (s *Service) Admit(ctx context.Context, app uuid.UUID) error {
	_, err := s.admit(ctx, app)
	return err
}

// admit is Admit, reporting how many jobs it admitted.
func (s *Service) admit(ctx context.Context, app uuid.UUID) (int, error) {
	total := 0
	for {
		n, full, err := s.admitBatch(ctx, app)
		total += n
		if err != nil || !full || n == 0 {
			return total, err
		}
	}
}

// admitBatch admits up to one batch and reports how many it admitted and whether it took as many as it
// could (more may follow).
func (s *Service) admitBatch(ctx context.Context, app uuid.UUID) (int, bool, error) {
	var admitted, room int
	var started []*run.Started
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('admit:' || $1::text, 0))`, app); err != nil {
			return err
		}
		var a access.App
		if err := tx.GetContext(ctx, &a, `SELECT `+access.AppColumns+` FROM apps a WHERE a.id = $1`, app); err != nil {
			if dbx.IsNoRows(err) {
				return nil
			}
			return err
		}
		if a.Status != "ACTIVE" || a.APIID == nil {
			return nil // a PAUSED app starts nothing; ACTIVE again, it is admitted
		}
		room = batchSize
		if limit := a.ParsedSettings().MaxRunningJobs; limit != nil {
			n, err := counts.PerStatus(ctx, tx, app)
			if err != nil {
				return err
			}
			running := int(n["SCHEDULED"] + n["IN_PROGRESS"] + n["SUSPENDED"])
			room = min(room, *limit-running)
		}
		if room <= 0 {
			return nil
		}
		var jobs []struct {
			ID    int64           `db:"id"`
			Input json.RawMessage `db:"input"`
		}
		if err := tx.SelectContext(ctx, &jobs, `SELECT id, input FROM jobs WHERE app_id = $1 AND status = 'PENDING'
			ORDER BY priority DESC, id LIMIT $2 FOR UPDATE SKIP LOCKED`, app, room); err != nil {
			return err
		}
		ids := make([]int64, 0, len(jobs))
		for _, j := range jobs {
			_, st, ok, err := executions.ForJob(ctx, tx, s.engine, executions.Spec{Org: a.OrganizationID, Flow: *a.APIID,
				Input: j.Input, Actor: "system"}, app, j.ID)
			started = append(started, st)
			if err != nil {
				return err
			}
			if !ok {
				return errNoVersion
			}
			ids = append(ids, j.ID)
		}
		admitted = len(ids)
		_, err := tx.ExecContext(ctx, `WITH moved AS (
				UPDATE jobs SET status = 'SCHEDULED', processing_state = 'QUEUED', updated_at = now()
				WHERE app_id = $1 AND id = ANY($2) RETURNING id, organization_id)
			INSERT INTO job_history (job_id, app_id, organization_id, event, from_status, to_status)
			SELECT id, $1, organization_id, 'STATUS_CHANGED', 'PENDING', 'SCHEDULED' FROM moved`, app, pq.Array(ids))
		return err
	})
	for _, st := range started {
		if err != nil {
			st.Drop()
		} else {
			st.Run()
		}
	}
	if errors.Is(err, errNoVersion) {
		// The flow has no version that can run: the jobs wait PENDING until it has one.
		s.log.Warn("PENDING jobs wait: the app's flow has no valid version", "app", app)
		return 0, false, nil
	}
	return admitted, admitted > 0 && admitted == room, err
}

var errNoVersion = errors.New("the app's flow has no valid version")
