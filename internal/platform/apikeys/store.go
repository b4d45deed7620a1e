package apikeys

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
)

// keyColumns are the columns every read returns; the token hash is never one of them.
const keyColumns = `id, organization_id, user_id, service_account_id, name, description, token_prefix,
	last_used_at, revoked_at, created_at, updated_at, modified_by`

// keyRow is one api_keys row as the routes show it.
type keyRow struct {
	ID               uuid.UUID  `db:"id"`
	OrganizationID   uuid.UUID  `db:"organization_id"`
	UserID           *uuid.UUID `db:"user_id"`
	ServiceAccountID *uuid.UUID `db:"service_account_id"`
	Name             string     `db:"name"`
	Description      *string    `db:"description"`
	TokenPrefix      string     `db:"token_prefix"`
	LastUsedAt       *time.Time `db:"last_used_at"`
	RevokedAt        *time.Time `db:"revoked_at"`
	CreatedAt        time.Time  `db:"created_at"`
	UpdatedAt        time.Time  `db:"updated_at"`
	ModifiedBy       string     `db:"modified_by"`
}

func (r keyRow) response() platformapi.ApiKeyResponse {
	return platformapi.ApiKeyResponse{
		Id: r.ID, OrganizationId: r.OrganizationID, UserId: r.UserID, ServiceAccountId: r.ServiceAccountID,
		Name: r.Name, Description: r.Description, TokenPrefix: r.TokenPrefix, LastUsedAt: r.LastUsedAt,
		RevokedAt: r.RevokedAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ModifiedBy: r.ModifiedBy,
	}
}

// scope is the set of keys a caller may see and revoke: always its own organization's, and unless it
// administers the organization only the keys it owns. A key's owner is its user or its service account
// (exactly one is set), so a person and a service account are matched by the same condition.
type scope struct {
	org   uuid.UUID
	owner uuid.UUID // uuid.Nil: every key of the organization
}

func scopeOf(p *auth.Principal) scope {
	s := scope{org: p.OrganizationID}
	if p.Role != auth.RoleOrgAdmin && p.Role != auth.RoleBackoffice {
		s.owner = p.UserID
	}
	return s
}

// where returns the condition and its arguments, numbered from $1.
func (s scope) where() (string, []any) {
	if s.owner == uuid.Nil {
		return `organization_id = $1`, []any{s.org}
	}
	return `organization_id = $1 AND coalesce(user_id, service_account_id) = $2`, []any{s.org, s.owner}
}

// newKey is what insertKey writes.
type newKey struct {
	org, owner     uuid.UUID
	serviceAccount bool
	name           string
	description    *string
	prefix         string
	hash           []byte
	actor          string
}

func insertKey(ctx context.Context, db dbx.DBTX, k newKey) (keyRow, error) {
	var userID, saID *uuid.UUID
	if k.serviceAccount {
		saID = &k.owner
	} else {
		userID = &k.owner
	}
	var r keyRow
	err := db.GetContext(ctx, &r, `
		INSERT INTO api_keys (organization_id, user_id, service_account_id, name, description, token_prefix, token_hash, modified_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		RETURNING `+keyColumns, k.org, userID, saID, k.name, k.description, k.prefix, k.hash, k.actor)
	return r, dbx.Translate(err)
}

func getKey(ctx context.Context, db dbx.DBTX, s scope, id uuid.UUID) (keyRow, error) {
	cond, args := s.where()
	var r keyRow
	err := db.GetContext(ctx, &r, fmt.Sprintf(`SELECT %s FROM api_keys WHERE %s AND id = $%d`,
		keyColumns, cond, len(args)+1), append(args, id)...)
	return r, dbx.Translate(err)
}

func listKeys(ctx context.Context, db dbx.DBTX, s scope, includeRevoked bool, limit, offset int) ([]keyRow, int, error) {
	cond, args := s.where()
	if !includeRevoked {
		cond += ` AND revoked_at IS NULL`
	}
	var total int
	if err := db.GetContext(ctx, &total, `SELECT count(*) FROM api_keys WHERE `+cond, args...); err != nil {
		return nil, 0, err
	}
	rows := []keyRow{}
	n := len(args)
	err := db.SelectContext(ctx, &rows, fmt.Sprintf(`SELECT %s FROM api_keys WHERE %s
		ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d`, keyColumns, cond, n+1, n+2),
		append(args, limit, offset)...)
	return rows, total, err
}

// revokeKey revokes a key the scope covers. It reports false when no such key exists; a key that is
// already revoked is left exactly as it is, revocation time and author included.
func revokeKey(ctx context.Context, db dbx.DBTX, s scope, id uuid.UUID, actor string) (bool, error) {
	cond, args := s.where()
	n := len(args)
	var found bool
	err := db.GetContext(ctx, &found, fmt.Sprintf(`
		WITH target AS (SELECT id, revoked_at FROM api_keys WHERE %s AND id = $%d FOR UPDATE),
		revoked AS (
			UPDATE api_keys k SET revoked_at = now(), modified_by = $%d
			FROM target t WHERE k.id = t.id AND t.revoked_at IS NULL
		)
		SELECT EXISTS (SELECT 1 FROM target)`, cond, n+1, n+2), append(args, id, actor)...)
	return found, err
}
