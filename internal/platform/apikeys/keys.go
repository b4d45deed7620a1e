package apikeys

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// CreateApiKey issues a key to the caller, or to a new service account, and returns its token once.
func (s *Service) CreateApiKey(ctx context.Context, req platformapi.CreateApiKeyRequestObject) (platformapi.CreateApiKeyResponseObject, error) {
	p := auth.MustFromContext(ctx)
	body := req.Body
	if strings.TrimSpace(body.Name) == "" {
		return nil, httpx.Invalid([]any{"body", "name"}, "value_error", "name must not be blank")
	}
	forServiceAccount := body.ServiceAccount != nil && *body.ServiceAccount
	if forServiceAccount && p.Role != auth.RoleOrgAdmin && p.Role != auth.RoleBackoffice {
		return nil, httpx.Forbidden("only org_admin and backoffice may create service accounts")
	}

	token, prefix := auth.NewAPIKey()
	k := newKey{
		org: p.OrganizationID, owner: p.UserID, name: body.Name, description: body.Description,
		prefix: prefix, hash: auth.HashToken(token), actor: p.Actor(),
		// A service account that creates a key keeps it for itself: its keys are always service-account
		// keys, so the organization's admins see them as such.
		serviceAccount: p.ServiceAccount,
	}
	var row keyRow
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		if forServiceAccount {
			id, err := createServiceAccount(ctx, tx, p.OrganizationID, body.Name, p.Actor())
			if err != nil {
				return err
			}
			k.owner, k.serviceAccount = id, true
		}
		var err error
		row, err = insertKey(ctx, tx, k)
		return err
	})
	if err != nil {
		return nil, err
	}
	r := row.response()
	return platformapi.CreateApiKey201JSONResponse{
		Id: r.Id, OrganizationId: r.OrganizationId, UserId: r.UserId, ServiceAccountId: r.ServiceAccountId,
		Name: r.Name, Description: r.Description, TokenPrefix: r.TokenPrefix, LastUsedAt: r.LastUsedAt,
		RevokedAt: r.RevokedAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ModifiedBy: r.ModifiedBy,
		Token: token,
	}, nil
}

// ListApiKeys lists the keys the caller may see, newest first.
func (s *Service) ListApiKeys(ctx context.Context, req platformapi.ListApiKeysRequestObject) (platformapi.ListApiKeysResponseObject, error) {
	p := auth.MustFromContext(ctx)
	pg := httpx.NewPaging(req.Params.Page, req.Params.Limit)
	includeRevoked := req.Params.IncludeRevoked != nil && *req.Params.IncludeRevoked
	rows, total, err := listKeys(ctx, s.db, scopeOf(p), includeRevoked, pg.Limit, pg.Offset())
	if err != nil {
		return nil, err
	}
	out := platformapi.ListApiKeys200JSONResponse{ApiKeys: make([]platformapi.ApiKeyResponse, 0, len(rows)),
		Total: total, Page: pg.Page, Limit: pg.Limit}
	for _, r := range rows {
		out.ApiKeys = append(out.ApiKeys, r.response())
	}
	return out, nil
}

// GetApiKey returns one key the caller may see; revoked keys included.
func (s *Service) GetApiKey(ctx context.Context, req platformapi.GetApiKeyRequestObject) (platformapi.GetApiKeyResponseObject, error) {
	p := auth.MustFromContext(ctx)
	row, err := getKey(ctx, s.db, scopeOf(p), req.Id)
	if errors.Is(err, dbx.ErrNotFound) {
		return nil, httpx.NotFound("API key")
	}
	if err != nil {
		return nil, err
	}
	return platformapi.GetApiKey200JSONResponse(row.response()), nil
}

// RevokeApiKey revokes a key the caller may see. The authenticator has already let this request
// through, so a key that revokes itself completes this request and is refused from the next one on.
func (s *Service) RevokeApiKey(ctx context.Context, req platformapi.RevokeApiKeyRequestObject) (platformapi.RevokeApiKeyResponseObject, error) {
	p := auth.MustFromContext(ctx)
	found, err := revokeKey(ctx, s.db, scopeOf(p), uuid.UUID(req.Id), p.Actor())
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, httpx.NotFound("API key")
	}
	return platformapi.RevokeApiKey204Response{}, nil
}
