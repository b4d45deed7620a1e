package sso

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/httpx"
)

// Lookups are public, so they are limited per client address: enough for people typing their address
// on a sign-in page, too few to enumerate which domains use single sign-on.
const (
	lookupLimit  = 60
	lookupWindow = time.Minute
)

// LookupSsoProvider tells a sign-in page whether an address's domain signs in through an active
// provider. It answers the same way whether or not any account exists for the address.
func (s *Service) LookupSsoProvider(ctx context.Context, req platformapi.LookupSsoProviderRequestObject) (platformapi.LookupSsoProviderResponseObject, error) {
	ip := httpx.ClientIP(ctx)
	if ip == "" {
		ip = "unknown"
	}
	ok, retry, err := s.d.Limiter.Allow(ctx, "sso_lookup:"+ip, lookupLimit, lookupWindow)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, tooManyLookups(retry)
	}
	email := string(req.Params.Email)
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return nil, httpx.Invalid([]any{"query", "email"}, "value_error", "email must be an e-mail address")
	}
	domain := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(email[at+1:])), ".")
	out := platformapi.LookupSsoProvider200JSONResponse{Domain: domain}
	// A provider serves sign-in only for a domain it has verified, and only while it and its
	// organization are active.
	var id string
	err = s.d.DB.GetContext(ctx, &id, `
		SELECT p.id FROM sso_domains d
		JOIN sso_providers p ON p.id = d.provider_id
		JOIN organizations o ON o.id = p.organization_id
		WHERE d.domain = $1 AND d.verified_at IS NOT NULL AND p.is_active AND o.is_active`, domain)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return nil, err
	default:
		out.SsoEnabled, out.SsoProviderId = true, &id
	}
	return out, nil
}

func tooManyLookups(retry time.Duration) error {
	return httpx.TooManyRequests(retry, "too many single sign-on lookups from this address")
}
