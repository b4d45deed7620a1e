package sqldatabases

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

var errNotFound = httpx.NotFound("SQL database")

type row struct {
	ID         uuid.UUID  `db:"id"`
	UserID     *uuid.UUID `db:"user_id"`
	Name       string     `db:"name"`
	CreatedAt  time.Time  `db:"created_at"`
	UpdatedAt  time.Time  `db:"updated_at"`
	ModifiedBy string     `db:"modified_by"`
}

const columns = `id, user_id, name, created_at, updated_at, modified_by`

// response opens the secret for the fields the contract shows; password and connection string stay.
func (s *Service) response(ctx context.Context, org uuid.UUID, r row) (platformapi.SqlDatabaseResponse, error) {
	sec, err := s.d.Secrets.Open(ctx, org, r.ID)
	if err != nil {
		return platformapi.SqlDatabaseResponse{}, err
	}
	d := sec.Data
	str := func(k string) string { v, _ := d[k].(string); return v }
	port := "5432"
	if n, ok := d["port"].(float64); ok {
		port = strconv.Itoa(int(n))
	}
	_, hasCS := d["connection_string"]
	return platformapi.SqlDatabaseResponse{Id: r.ID, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		ModifiedBy: r.ModifiedBy, Name: r.Name, Host: str("host"), Port: port, Username: str("username"),
		Database: str("database"), HasConnectionString: hasCS, UserId: r.UserID}, nil
}

func (s *Service) get(ctx context.Context, org, id uuid.UUID) (platformapi.SqlDatabaseResponse, error) {
	var r row
	err := s.d.DB.GetContext(ctx, &r, `SELECT `+columns+` FROM credentials WHERE organization_id = $1 AND id = $2
		AND provider = 'sql_database'`, org, id)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return platformapi.SqlDatabaseResponse{}, errNotFound
	}
	if err != nil {
		return platformapi.SqlDatabaseResponse{}, err
	}
	return s.response(ctx, org, r)
}

// GetSqlDatabase returns one registered database; another organization's is the same 404 as a random id.
func (s *Service) GetSqlDatabase(ctx context.Context, req platformapi.GetSqlDatabaseRequestObject) (platformapi.GetSqlDatabaseResponseObject, error) {
	p := auth.MustFromContext(ctx)
	r, err := s.get(ctx, p.OrganizationID, req.Id)
	if err != nil {
		return nil, err
	}
	return platformapi.GetSqlDatabase200JSONResponse(r), nil
}

// ListSqlDatabases pages through the organization's databases, newest first.
func (s *Service) ListSqlDatabases(ctx context.Context, req platformapi.ListSqlDatabasesRequestObject) (platformapi.ListSqlDatabasesResponseObject, error) {
	p := auth.MustFromContext(ctx)
	pg := httpx.NewPaging(req.Params.Page, req.Params.Limit)
	var total int
	if err := s.d.DB.GetContext(ctx, &total, `SELECT count(*) FROM credentials WHERE organization_id = $1 AND provider = 'sql_database'`,
		p.OrganizationID); err != nil {
		return nil, err
	}
	var rows []row
	if err := s.d.DB.SelectContext(ctx, &rows, `SELECT `+columns+` FROM credentials WHERE organization_id = $1
		AND provider = 'sql_database' ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
		p.OrganizationID, pg.Limit, pg.Offset()); err != nil {
		return nil, err
	}
	out := platformapi.ListSqlDatabases200JSONResponse{SqlDatabases: make([]platformapi.SqlDatabaseResponse, 0, len(rows)),
		Total: total, Page: pg.Page, Limit: pg.Limit}
	for _, r := range rows {
		resp, err := s.response(ctx, p.OrganizationID, r)
		if err != nil {
			return nil, fmt.Errorf("SQL database %s: %w", r.ID, err)
		}
		out.SqlDatabases = append(out.SqlDatabases, resp)
	}
	return out, nil
}

// DeleteSqlDatabase removes the registration through the credentials route's rules (org_admin or the
// user who registered it; 409 in_use while an integration uses it).
func (s *Service) DeleteSqlDatabase(ctx context.Context, req platformapi.DeleteSqlDatabaseRequestObject) (platformapi.DeleteSqlDatabaseResponseObject, error) {
	p := auth.MustFromContext(ctx)
	if _, err := s.get(ctx, p.OrganizationID, req.Id); err != nil {
		return nil, err
	}
	if _, err := s.d.Credentials.DeleteCredential(ctx, platformapi.DeleteCredentialRequestObject{Id: req.Id}); err != nil {
		var he *httpx.Error
		if errors.As(err, &he) && he.Status == 404 {
			return nil, errNotFound
		}
		return nil, err
	}
	return platformapi.DeleteSqlDatabase204Response{}, nil
}
