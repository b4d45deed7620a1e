package documents

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/platform/credentials"
	"github.com/loopwork/loopwork/internal/platform/sqldatabases"
)

// SQLConnector opens what a sql_query task's database_id names: a registered SQL database (a
// sql_database credential), through the guard; the organization's document tables, for an
// internal_sql_database credential or a csv document's id, as the organization's own role; or the
// database of a sql document.
func (s *Service) SQLConnector() executors.SQLConnector {
	return func(ctx context.Context, org, id uuid.UUID) (*sql.DB, error) {
		sec, err := s.d.Secrets.Open(ctx, org, id)
		switch {
		case err == nil && sec.Provider == "sql_database":
			return sqldatabases.Open(s.d.Guard, sec.Data)
		case err == nil && sec.Provider == "internal_sql_database":
			return s.Connect(ctx, org)
		case err == nil:
			return nil, executors.ErrNoDatabase
		case !errors.Is(err, credentials.ErrNotFound):
			return nil, err
		}
		d, err := get(ctx, s.d.DB, org, id, false)
		if errors.Is(err, errNotFound) {
			return nil, executors.ErrNoDatabase
		}
		if err != nil {
			return nil, err
		}
		if d.DatabaseType == "sql" {
			return s.openSource(ctx, d)
		}
		return s.Connect(ctx, org)
	}
}
