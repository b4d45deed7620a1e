package credentials

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
)

// columns are what every read returns; the sealed secret is never one of them, so no code path that
// answers a request can leak it by accident.
const columns = `id, organization_id, user_id, name, provider, credential_type, created_at, updated_at, modified_by,
	shared, allowed_domains`

type row struct {
	ID             uuid.UUID      `db:"id"`
	OrganizationID uuid.UUID      `db:"organization_id"`
	UserID         *uuid.UUID     `db:"user_id"`
	Name           string         `db:"name"`
	Provider       string         `db:"provider"`
	CredentialType *string        `db:"credential_type"`
	CreatedAt      time.Time      `db:"created_at"`
	UpdatedAt      time.Time      `db:"updated_at"`
	ModifiedBy     string         `db:"modified_by"`
	Shared         bool           `db:"shared"`
	AllowedDomains pq.StringArray `db:"allowed_domains"`
}

func (r row) response() platformapi.CredentialsResponse {
	out := platformapi.CredentialsResponse{Id: r.ID, UserId: r.UserID, Name: r.Name,
		Provider: platformapi.ProviderApiEnum(r.Provider), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		ModifiedBy: r.ModifiedBy, Shared: r.Shared, AllowedDomains: append([]string{}, r.AllowedDomains...)}
	if r.CredentialType != nil {
		t := platformapi.CredentialTypeEnum(*r.CredentialType)
		out.CredentialType = &t
	}
	return out
}

// aad binds a sealed secret to its row and organization: a sealed value copied into another row, or
// another organization's row, does not open.
func aad(org, id uuid.UUID) []byte { return append(org[:], id[:]...) }

type newCredential struct {
	id, org  uuid.UUID
	user     *uuid.UUID
	name     string
	provider string
	credType string
	sealed   []byte
	actor    string
	shared   bool
	// domains are the hosts it may be sent to; nil is any host.
	domains []string
}

func insert(ctx context.Context, db dbx.DBTX, c newCredential) (row, error) {
	if c.domains == nil {
		c.domains = []string{anyHost}
	}
	var r row
	err := db.GetContext(ctx, &r, `
		INSERT INTO credentials (id, organization_id, user_id, name, provider, credential_type, sealed_secret, modified_by,
			shared, allowed_domains)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		RETURNING `+columns, c.id, c.org, c.user, c.name, c.provider, c.credType, c.sealed, c.actor, c.shared,
		pq.StringArray(c.domains))
	return r, dbx.Translate(err)
}

// get reads one credential of the organization; forUpdate locks it for the rest of the transaction.
func get(ctx context.Context, db dbx.DBTX, org, id uuid.UUID, forUpdate bool) (row, error) {
	q := `SELECT ` + columns + ` FROM credentials WHERE organization_id = $1 AND id = $2`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	var r row
	err := db.GetContext(ctx, &r, q, org, id)
	return r, dbx.Translate(err)
}

func list(ctx context.Context, db dbx.DBTX, org uuid.UUID, provider *string, limit, offset int) ([]row, int, error) {
	var total int
	if err := db.GetContext(ctx, &total, `SELECT count(*) FROM credentials
		WHERE organization_id = $1 AND ($2::text IS NULL OR provider = $2)`, org, provider); err != nil {
		return nil, 0, err
	}
	rows := []row{}
	err := db.SelectContext(ctx, &rows, `SELECT `+columns+` FROM credentials
		WHERE organization_id = $1 AND ($2::text IS NULL OR provider = $2)
		ORDER BY name, id LIMIT $3 OFFSET $4`, org, provider, limit, offset)
	return rows, total, err
}

// change is an update; nil fields stay as they are.
type change struct {
	name     *string
	credType *string
	sealed   []byte
	actor    string
	shared   *bool
	domains  []string // nil keeps them
}

func update(ctx context.Context, db dbx.DBTX, org, id uuid.UUID, c change) (row, error) {
	// A nil []byte is not a NULL to every driver; say so explicitly so coalesce keeps the old secret.
	var sealed any
	if c.sealed != nil {
		sealed = c.sealed
	}
	var domains any
	if c.domains != nil {
		domains = pq.StringArray(c.domains)
	}
	var r row
	err := db.GetContext(ctx, &r, `
		UPDATE credentials SET name = coalesce($3, name), credential_type = coalesce($4, credential_type),
			sealed_secret = coalesce($5, sealed_secret), modified_by = $6, shared = coalesce($7, shared),
			allowed_domains = coalesce($8::text[], allowed_domains)
		WHERE organization_id = $1 AND id = $2
		RETURNING `+columns, org, id, c.name, c.credType, sealed, c.actor, c.shared, domains)
	return r, dbx.Translate(err)
}

func remove(ctx context.Context, db dbx.DBTX, org, id uuid.UUID) error {
	_, err := db.ExecContext(ctx, `DELETE FROM credentials WHERE organization_id = $1 AND id = $2`, org, id)
	return dbx.Translate(err)
}
