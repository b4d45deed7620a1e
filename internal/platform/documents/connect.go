package documents

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/platform/credentials"
	"github.com/loopwork/loopwork/internal/platform/sqldatabases"
)

// SQLConnector opens what a sql_query task's database_id names: a registered SQL database (a
// sql_database credential the user who saved the flow version may use), through the guard; the
// organization's document database, for an internal_sql_database credential or a csv document's id, as the
// organization's own role; or the database of a sql document, while the document's creator may still use
// its credential (openSource).
func (s *Service) SQLConnector() executors.SQLConnector {
	return func(ctx context.Context, org, id uuid.UUID) (executors.SQLTarget, error) {
		sec, err := s.usableSecret(ctx, org, id)
		switch {
		case errors.Is(err, credentials.ErrNotUsable):
			return executors.SQLTarget{}, executors.ErrNoDatabase
		case err == nil && sec.Provider == "sql_database":
			return outside(sqldatabases.Open(s.d.Guard, sec))
		case err == nil && sec.Provider == "internal_sql_database":
			return s.Connect(ctx, org)
		case err == nil:
			return executors.SQLTarget{}, executors.ErrNoDatabase
		case !errors.Is(err, credentials.ErrNotFound):
			return executors.SQLTarget{}, err
		}
		d, err := get(ctx, s.d.DB, org, id, false)
		if errors.Is(err, errNotFound) {
			return executors.SQLTarget{}, executors.ErrNoDatabase
		}
		if err != nil {
			return executors.SQLTarget{}, err
		}
		if d.DatabaseType == "sql" {
			db, err := s.openSource(ctx, d)
			if errors.Is(err, errSourceNotUsable) {
				return executors.SQLTarget{}, executors.Permanent(fmt.Errorf("database_id: %w", err))
			}
			return outside(db, err)
		}
		return s.Connect(ctx, org)
	}
}

func outside(db *sql.DB, err error) (executors.SQLTarget, error) {
	if err != nil {
		return executors.SQLTarget{}, err
	}
	return executors.SQLTarget{DB: db}, nil
}

// Connect opens the organization's document database as the organization's role, confined: what
// sql_query tasks over documents run on. The caller closes the handle.
func (s *Service) Connect(ctx context.Context, org uuid.UUID) (executors.SQLTarget, error) {
	t, err := s.ensureDatabase(ctx, org)
	if err != nil {
		return executors.SQLTarget{}, err
	}
	db, err := s.openAsTenant(t)
	if err != nil {
		return executors.SQLTarget{}, err
	}
	return executors.SQLTarget{DB: db, Confined: true}, nil
}

// usableSecret opens credential id for a sql_query attempt, when the user who saved the flow version
// being run may use it; ErrNotUsable when that user may not (or no attempt is running), ErrNotFound when
// id is not a credential of the organization (it may be a document's id).
func (s *Service) usableSecret(ctx context.Context, org, id uuid.UUID) (credentials.Secret, error) {
	a, ok := executors.AttemptOf(ctx)
	if !ok || a.Org != org {
		return credentials.Secret{}, credentials.ErrNotUsable
	}
	if err := s.d.Secrets.UsableInExecution(ctx, org, a.Execution, id); err != nil {
		return credentials.Secret{}, err
	}
	return s.d.Secrets.Open(ctx, org, id)
}
