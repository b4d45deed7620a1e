package orgs

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// Row is an organization as stored.
type Row struct {
	ID         uuid.UUID `db:"id"`
	Name       string    `db:"name"`
	IsActive   bool      `db:"is_active"`
	CreatedAt  time.Time `db:"created_at"`
	ModifiedAt time.Time `db:"modified_at"`
}

// columns selects a Row.
const columns = `id, name, is_active, created_at, modified_at`

// Response renders the row in the contract's shape.
func (r Row) Response() platformapi.OrganizationResponse {
	active := r.IsActive
	return platformapi.OrganizationResponse{Id: r.ID, Name: r.Name, IsActive: &active, CreatedAt: r.CreatedAt,
		ModifiedAt: r.ModifiedAt}
}

// Load returns one organization, or dbx.ErrNotFound. Other services use it to show a user's
// organization; the caller decides whether the principal may see it.
func Load(ctx context.Context, db dbx.DBTX, id uuid.UUID) (Row, error) {
	var r Row
	err := db.GetContext(ctx, &r, `SELECT `+columns+` FROM organizations WHERE id = $1`, id)
	return r, dbx.Translate(err)
}

// endSessions revokes every session of the organization's users, so their refresh tokens stop working
// and stay stopped after a reactivation (people sign in again then). Access tokens and API keys need no
// change: the authenticator refuses principals of an inactive organization on every request.
func endSessions(ctx context.Context, db dbx.DBTX, id uuid.UUID) error {
	_, err := db.ExecContext(ctx, `UPDATE auth_sessions SET revoked_at = now()
		WHERE organization_id = $1 AND revoked_at IS NULL`, id)
	return err
}

// cleanName trims surrounding white space, which is not part of a name. The contract's pattern refuses
// names without any ASCII non-space, but Unicode spaces pass it, so blank is checked again here.
func cleanName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", httpx.Invalid([]any{"body", "name"}, "string_pattern_mismatch", "must not be blank")
	}
	return name, nil
}

// nameTaken turns the unique index on the name into the contract's 409; other errors pass through.
func nameTaken(err error, name string) error {
	err = dbx.Translate(err)
	var ce *dbx.ConstraintError
	if errors.As(err, &ce) && errors.Is(err, dbx.ErrConflict) && ce.Constraint == "organizations_name_key" {
		return httpx.Conflict("an organization named %q already exists", name)
	}
	return err
}

// notFound maps a missing row to the public 404.
func notFound(err error) error {
	if errors.Is(err, dbx.ErrNotFound) {
		return httpx.NotFound("organization")
	}
	return err
}
