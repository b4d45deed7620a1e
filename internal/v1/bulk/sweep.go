package bulk

import (
	"context"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/filter"
)

// CancelJobs cancels the matching unfinished jobs: up to 1000 before the reply (200), more in the
// background (202 with the operation id). The contract's statusIn enum already refuses finished
// statuses with 400.
func (s *Service) CancelJobs(ctx context.Context, req v1api.CancelJobsRequestObject) (v1api.CancelJobsResponseObject, error) {
	out, err := s.sweep(ctx, req.AppId, filter.FromParams(req.Params), TypeCancel)
	if err != nil {
		return nil, err
	}
	body := v1api.JobCanceled{Matched: out.matched, Canceled: out.done, OperationId: out.operation}
	if out.operation != nil {
		return v1api.CancelJobs202JSONResponse(body), nil
	}
	return v1api.CancelJobs200JSONResponse(body), nil
}

// DeleteJobs deletes the matching jobs: up to 1000 before the reply (200), more in the background
// (202 with the operation id).
func (s *Service) DeleteJobs(ctx context.Context, req v1api.DeleteJobsRequestObject) (v1api.DeleteJobsResponseObject, error) {
	out, err := s.sweep(ctx, req.AppId, filter.FromParams(req.Params), TypeDelete)
	if err != nil {
		return nil, err
	}
	body := v1api.JobDeleted{Matched: out.matched, Deleted: out.done, OperationId: out.operation}
	if out.operation != nil {
		return v1api.DeleteJobs202JSONResponse(body), nil
	}
	return v1api.DeleteJobs200JSONResponse(body), nil
}

// outcome is what a cancel or delete request did: matched jobs, done before the reply, or the
// operation doing them in the background.
type outcome struct {
	matched, done int64
	operation     *uuid.UUID
}

// sweep decides between doing the work now and starting an operation, in one transaction: a cheap
// count that stops after syncLimit+1 jobs says which; only a large selection is counted in full, for
// the reply's matched and the operation's total. Either way the selection is bounded by the highest
// id counted, so jobs submitted meanwhile are not swept up.
func (s *Service) sweep(ctx context.Context, appID uuid.UUID, set filter.Set, typ string) (outcome, error) {
	g, p, err := s.d.Grants.Require(ctx, appID, access.Manager)
	if err != nil {
		return outcome{}, err
	}
	t, a := target{App: g.ID, Org: g.OrganizationID, Filter: set}, actorOf(p)
	var out outcome
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		limit := syncLimit + 1
		n, upTo, err := count(ctx, tx, t, typ, &limit)
		if err != nil || n == 0 {
			return err
		}
		if n <= syncLimit {
			r, err := apply(ctx, tx, typ, t, window{UpTo: upTo, Limit: limit}, a, nil, nil)
			out.matched, out.done = r.Done, r.Done
			return err
		}
		if n, upTo, err = count(ctx, tx, t, typ, nil); err != nil {
			return err
		}
		id, err := Start(ctx, tx, s.d.Queue, NewOperation{App: t.App, Org: t.Org, Type: typ, Filter: set,
			CreatedBy: a.Username, Total: &n, UpTo: upTo})
		out.matched, out.operation = n, &id
		return err
	})
	return out, err
}

// count counts the selection, stopping after limit jobs when a limit is given, and returns the
// highest id counted.
func count(ctx context.Context, tx *sqlx.Tx, t target, typ string, limit *int) (n, upTo int64, err error) {
	fixed := []any{t.App, t.Org, limit}
	where, err := t.compile(len(fixed))
	if err != nil {
		return 0, 0, err
	}
	var row struct {
		N    int64 `db:"n"`
		UpTo int64 `db:"up_to"`
	}
	err = tx.GetContext(ctx, &row, dbx.CustomPlan+`SELECT count(*) AS n, coalesce(max(id), 0) AS up_to FROM (
		SELECT j.id FROM jobs j WHERE j.app_id = $1 AND j.organization_id = $2`+scope(typ)+` AND (`+where.SQL+`)
		LIMIT $3) s`, append(fixed, where.Args...)...)
	return row.N, row.UpTo, err
}

// scope is the condition an operation type adds to the filter: only unfinished jobs can be canceled
// and only PENDING, SCHEDULED and SUSPENDED ones are resubmitted.
func scope(typ string) string {
	switch typ {
	case TypeCancel:
		return ` AND j.status IN ` + unfinishedJobs
	case TypeRerun:
		return ` AND j.status IN ` + rerunnableJobs
	}
	return ""
}

// apply runs one batch of an operation type.
func apply(ctx context.Context, tx *sqlx.Tx, typ string, t target, w window, a actor, batchID *string, details []byte) (result, error) {
	if err := haltExecutions(ctx, tx, typ, t, w, a); err != nil {
		return result{}, err
	}
	switch typ {
	case TypeCancel:
		return cancelBatch(ctx, tx, t, w, a, details)
	case TypeDelete:
		return deleteBatch(ctx, tx, t, w)
	case TypeRerun:
		return rerunBatch(ctx, tx, t, w, a, batchID, details)
	}
	return result{}, errUnknownType(typ)
}
