package flows

import (
	"context"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/tasks"
	"github.com/loopwork/loopwork/internal/platform/credentials"
)

// BuiltinModel is the model every server has: the deterministic offline model that answers when no
// OpenAI-compatible endpoint is configured.
var BuiltinModel = tasks.Model{Name: "loopwork-builtin", Provider: "builtin"}

// Source is the dynamic data of task types as this server knows it: the configured models, and the
// organization's SQL databases and credentials (read from db; nil db lists none, for tests of the
// registry alone).
type Source struct {
	models []tasks.Model
	db     dbx.DBTX
}

// NewSource returns the source with the built-in model and the extra models given.
func NewSource(db dbx.DBTX, models ...tasks.Model) *Source {
	return &Source{db: db, models: append([]tasks.Model{BuiltinModel}, models...)}
}

// Models are the models an llm task may name.
func (s *Source) Models(context.Context) ([]tasks.Model, error) { return s.models, nil }

// SQLDatabases are what a sql_query task may name: the organization's registered SQL databases and
// internal_sql_database credentials, then its document files (kind document).
func (s *Source) SQLDatabases(ctx context.Context, org uuid.UUID) ([]tasks.Option, error) {
	out := []tasks.Option{}
	if s.db == nil {
		return out, nil
	}
	err := s.db.SelectContext(ctx, &out, `(SELECT c.id::text AS id, c.name, c.provider AS kind FROM credentials c
		WHERE c.organization_id = $1 AND c.provider IN ('sql_database', 'internal_sql_database') AND `+
		credentials.UsableBy("$2")+` ORDER BY c.name, c.id LIMIT 500)
		UNION ALL (SELECT id::text, name, 'document' FROM documents WHERE organization_id = $1 ORDER BY name, id LIMIT 500)`,
		org, userOf(ctx))
	return out, err
}

// userOf is the user whose choices dynamic data offers: the caller of ctx. Only the credentials that user
// may use are offered, as a flow naming any other would not be saved; without a caller, only shared ones.
func userOf(ctx context.Context) uuid.UUID {
	if p := auth.FromContext(ctx); p != nil {
		return p.UserID
	}
	return uuid.Nil
}

// Credentials are the organization's stored credentials the caller may use, by name; never their secrets.
func (s *Source) Credentials(ctx context.Context, org uuid.UUID) ([]tasks.Option, error) {
	return s.options(ctx, org, ``)
}

func (s *Source) options(ctx context.Context, org uuid.UUID, and string) ([]tasks.Option, error) {
	out := []tasks.Option{}
	if s.db == nil {
		return out, nil
	}
	err := s.db.SelectContext(ctx, &out, `SELECT c.id::text AS id, c.name, c.provider AS kind FROM credentials c
		WHERE c.organization_id = $1 AND `+credentials.UsableBy("$2")+and+` ORDER BY c.name, c.id LIMIT 500`, org, userOf(ctx))
	return out, err
}
