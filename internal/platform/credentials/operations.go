package credentials

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

const what = "credential"

// CreateCredential checks the secret against its provider, seals it and stores it.
func (s *Service) CreateCredential(ctx context.Context, req platformapi.CreateCredentialRequestObject) (platformapi.CreateCredentialResponseObject, error) {
	p := auth.MustFromContext(ctx)
	// auth.Permissions lets every role reach every credential operation, as it does for the other areas
	// whose staff access the server's tests rely on, so the contract's narrower rule is kept here.
	if !p.ManagesResources() {
		return nil, httpx.Forbidden("creating credentials requires role org_admin, app_user or integration")
	}
	body := req.Body
	prov := byName[body.Provider]
	if err := checkType(prov, body.CredentialType); err != nil {
		return nil, err
	}
	if body.Data == nil {
		return nil, httpx.Invalid([]any{"body", "data"}, "missing", "Field required.")
	}
	if err := checkData(prov, *body.Data); err != nil {
		return nil, err
	}
	c := newCredential{id: uuid.New(), org: p.OrganizationID, name: body.Name, provider: string(body.Provider),
		credType: string(body.CredentialType), actor: p.Actor(), user: p.User(), domains: domainsOf(body.AllowedDomains)}
	if body.Shared != nil {
		c.shared = *body.Shared
	}
	sealed, err := s.seal(c.org, c.id, *body.Data)
	if err != nil {
		return nil, err
	}
	c.sealed = sealed
	r, err := insert(ctx, s.db, c)
	if errors.Is(err, dbx.ErrConflict) {
		return nil, duplicate()
	}
	if err != nil {
		return nil, err
	}
	return platformapi.CreateCredential201JSONResponse(r.response()), nil
}

// ListCredentials lists the organization's credentials by name, then id.
func (s *Service) ListCredentials(ctx context.Context, req platformapi.ListCredentialsRequestObject) (platformapi.ListCredentialsResponseObject, error) {
	p := auth.MustFromContext(ctx)
	pg := httpx.NewPaging(req.Params.Page, req.Params.Limit)
	var prov *string
	if req.Params.Provider != nil {
		v := string(*req.Params.Provider)
		prov = &v
	}
	rows, total, err := list(ctx, s.db, p.OrganizationID, prov, pg.Limit, pg.Offset())
	if err != nil {
		return nil, err
	}
	out := platformapi.ListCredentials200JSONResponse{Credentials: make([]platformapi.CredentialsResponse, 0, len(rows)),
		Total: total, Page: pg.Page, Limit: pg.Limit}
	for _, r := range rows {
		out.Credentials = append(out.Credentials, r.response())
	}
	return out, nil
}

// ListCredentialProviders answers the fixed catalog.
func (s *Service) ListCredentialProviders(ctx context.Context, _ platformapi.ListCredentialProvidersRequestObject) (platformapi.ListCredentialProvidersResponseObject, error) {
	out := platformapi.ListCredentialProviders200JSONResponse{Providers: make([]platformapi.CredentialProvider, 0, len(catalog))}
	for _, p := range catalog {
		out.Providers = append(out.Providers, p.response())
	}
	return out, nil
}

// GetCredential returns one credential of the caller's organization; another organization's is the
// same 404 as an id that does not exist.
func (s *Service) GetCredential(ctx context.Context, req platformapi.GetCredentialRequestObject) (platformapi.GetCredentialResponseObject, error) {
	p := auth.MustFromContext(ctx)
	r, err := get(ctx, s.db, p.OrganizationID, req.Id, false)
	if errors.Is(err, dbx.ErrNotFound) {
		return nil, httpx.NotFound(what)
	}
	if err != nil {
		return nil, err
	}
	return platformapi.GetCredential200JSONResponse(r.response()), nil
}

// seal encrypts the secret for its row. json.Marshal of a decoded JSON object cannot fail; the error
// is returned rather than assumed away, and it never carries the value.
func (s *Service) seal(org, id uuid.UUID, data map[string]any) ([]byte, error) {
	plain, err := json.Marshal(data)
	if err != nil {
		return nil, errors.New("credentials: cannot encode the secret")
	}
	return s.box.Seal(plain, aad(org, id))
}

func duplicate() error {
	return httpx.NewError(http.StatusConflict, "conflict", "a credential with this name already exists in the organization")
}

// mayChange is the rule of update and delete: an org_admin, or the user who created the credential.
func mayChange(p *auth.Principal, r row) error {
	if p.Role == auth.RoleOrgAdmin || (!p.ServiceAccount && r.UserID != nil && *r.UserID == p.UserID) {
		return nil
	}
	return httpx.Forbidden("only org_admin or the user who created the credential may change or delete it")
}

// lockOwn reads the credential for update inside tx and checks that the caller may change it; 404
// comes before 403, so another organization's credential looks like a random id.
func lockOwn(ctx context.Context, tx *sqlx.Tx, p *auth.Principal, id uuid.UUID) (row, error) {
	r, err := get(ctx, tx, p.OrganizationID, id, true)
	if errors.Is(err, dbx.ErrNotFound) {
		return r, httpx.NotFound(what)
	}
	if err != nil {
		return r, err
	}
	return r, mayChange(p, r)
}
