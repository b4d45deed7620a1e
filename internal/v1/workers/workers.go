package workers

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/paging"
)

// workerColumns selects a Worker from `users u`; the username is the e-mail address.
const workerColumns = `u.worker_id, u.id, u.email, u.first_name, u.last_name, u.is_active`

type workerRow struct {
	WorkerID  int64     `db:"worker_id"`
	UserID    uuid.UUID `db:"id"`
	Email     string    `db:"email"`
	FirstName string    `db:"first_name"`
	LastName  string    `db:"last_name"`
	IsActive  bool      `db:"is_active"`
}

func (r workerRow) response() v1api.Worker {
	email := r.Email
	return v1api.Worker{WorkerId: r.WorkerID, UserId: r.UserID, Username: r.Email, Email: &email,
		FirstName: r.FirstName, LastName: r.LastName, IsActive: r.IsActive}
}

// UserOf returns the user behind a worker id of the organization, or the 404 of a worker that does
// not exist or belongs to another organization.
func UserOf(ctx context.Context, db dbx.DBTX, org uuid.UUID, workerID int64) (uuid.UUID, error) {
	var id uuid.UUID
	err := db.GetContext(ctx, &id, `SELECT id FROM users WHERE organization_id = $1 AND worker_id = $2`, org, workerID)
	if errors.Is(err, sql.ErrNoRows) {
		return uuid.Nil, httpx.NotFound("worker")
	}
	return id, err
}

// ListWorkers lists the active users of the caller's organization as workers.
func (s *Service) ListWorkers(ctx context.Context, req v1api.ListWorkersRequestObject) (v1api.ListWorkersResponseObject, error) {
	p := auth.MustFromContext(ctx)
	prm := req.Params
	pg := paging.New(prm.Page, prm.Size, (*string)(prm.SortBy), (*string)(prm.OrderBy),
		paging.Columns{"id": "u.worker_id", "username": "u.email"})
	where, args := `u.organization_id = $1 AND u.is_active`, []any{p.OrganizationID}
	if prm.UsernameContains != nil {
		// strpos on lowered text is a substring test in which % and _ are ordinary characters.
		where += ` AND strpos(lower(u.email::text), lower($2)) > 0`
		args = append(args, *prm.UsernameContains)
	}
	out := v1api.ListWorkers200JSONResponse{Items: []v1api.Worker{}, Page: pg.Page, Size: pg.Size}
	rows, total, err := paging.List[workerRow](ctx, s.d.DB, pg, workerColumns, "users u", where, args)
	if err != nil {
		return nil, err
	}
	out.Total = int(total)
	for _, r := range rows {
		out.Items = append(out.Items, r.response())
	}
	return out, nil
}

// GetWorker answers one worker of the caller's organization, deactivated ones included.
func (s *Service) GetWorker(ctx context.Context, req v1api.GetWorkerRequestObject) (v1api.GetWorkerResponseObject, error) {
	p := auth.MustFromContext(ctx)
	var r workerRow
	err := s.d.DB.GetContext(ctx, &r, `SELECT `+workerColumns+` FROM users u
		WHERE u.organization_id = $1 AND u.worker_id = $2`, p.OrganizationID, req.WorkerId)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, httpx.NotFound("worker")
	}
	if err != nil {
		return nil, err
	}
	return v1api.GetWorker200JSONResponse(r.response()), nil
}
