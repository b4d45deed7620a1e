package credentials

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/secret"
)

// Opener reveals a credential's secret to the server's own code (tasks and integrations that
// authenticate with it). What it returns must never reach a response or a log line.
type Opener struct {
	db  dbx.DBTX
	box *secret.Box
}

// NewOpener returns an Opener over db.
func NewOpener(db dbx.DBTX, box *secret.Box) *Opener { return &Opener{db: db, box: box} }

// Secret is an opened credential.
type Secret struct {
	ID             uuid.UUID
	Provider       string
	CredentialType *string
	Data           map[string]any
	// AllowedDomains are the hosts the secret may be sent to (netguard.DomainAllowed); ["*"] is any.
	AllowedDomains []string
}

// ErrNotFound is returned for a credential that is missing or another organization's.
var ErrNotFound = errors.New("credentials: not found")

// Open reads and opens the organization's credential id.
func (o *Opener) Open(ctx context.Context, org, id uuid.UUID) (Secret, error) {
	var r struct {
		Provider       string         `db:"provider"`
		CredentialType *string        `db:"credential_type"`
		Sealed         []byte         `db:"sealed_secret"`
		Domains        pq.StringArray `db:"allowed_domains"`
	}
	err := o.db.GetContext(ctx, &r, `SELECT provider, credential_type, sealed_secret, allowed_domains FROM credentials
		WHERE organization_id = $1 AND id = $2`, org, id)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return Secret{}, ErrNotFound
	}
	if err != nil {
		return Secret{}, err
	}
	plain, err := o.box.Open(r.Sealed, aad(org, id))
	if err != nil {
		return Secret{}, err
	}
	var data map[string]any
	if err := json.Unmarshal(plain, &data); err != nil {
		return Secret{}, errors.New("credentials: sealed secret is not a JSON object")
	}
	return Secret{ID: id, Provider: r.Provider, CredentialType: r.CredentialType, Data: data, AllowedDomains: r.Domains}, nil
}

// Insert seals data and stores it as a credential of p's organization under id and name, for routes
// that keep their secrets as credentials (SQL databases). data is not checked against the provider's
// schema here: the caller builds it. A name taken in the organization is dbx.ErrConflict.
func (o *Opener) Insert(ctx context.Context, p *auth.Principal, id uuid.UUID, name, provider, credType string, data map[string]any) error {
	plain, err := json.Marshal(data)
	if err != nil {
		return errors.New("credentials: cannot encode the secret")
	}
	sealed, err := o.box.Seal(plain, aad(p.OrganizationID, id))
	if err != nil {
		return err
	}
	c := newCredential{id: id, org: p.OrganizationID, name: name, provider: provider, credType: credType, sealed: sealed,
		actor: p.Actor(), user: p.User()}
	_, err = insert(ctx, o.db, c)
	return err
}
