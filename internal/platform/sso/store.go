package sso

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// newProviderID makes provider ids: UUID strings, as the contract describes sso_provider_id.
func newProviderID() string { return uuid.NewString() }

// providerRow is one provider with its domains, as the routes show it.
type providerRow struct {
	ID               string         `db:"id"`
	OrganizationID   uuid.UUID      `db:"organization_id"`
	MetadataURL      *string        `db:"metadata_url"`
	MetadataXMLHash  *string        `db:"metadata_xml_hash"`
	AttributeMapping []byte         `db:"attribute_mapping"`
	IsActive         bool           `db:"is_active"`
	CreatedAt        time.Time      `db:"created_at"`
	UpdatedAt        time.Time      `db:"updated_at"`
	Domains          pq.StringArray `db:"domains"`
	// Verifications are the domains' ownership proofs, as JSON in the order of Domains.
	Verifications []byte `db:"verifications"`
}

// verification is one element of providerRow.Verifications.
type verification struct {
	Domain     string     `json:"domain"`
	Token      string     `json:"token"`
	VerifiedAt *time.Time `json:"verified_at"`
}

func (r providerRow) response() (platformapi.SSOOrganizationResponse, error) {
	out := platformapi.SSOOrganizationResponse{
		SsoProviderId: r.ID, OrganizationId: &r.OrganizationID, MetadataUrl: r.MetadataURL,
		MetadataXmlHash: r.MetadataXMLHash, IsActive: &r.IsActive, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	domains := []string(r.Domains)
	if domains == nil {
		domains = []string{}
	}
	out.Domains = &domains
	var vs []verification
	if err := json.Unmarshal(r.Verifications, &vs); err != nil {
		return out, err
	}
	proofs := make([]platformapi.SSODomainVerification, len(vs))
	for i, v := range vs {
		proofs[i] = platformapi.SSODomainVerification{Domain: v.Domain, Verified: v.VerifiedAt != nil,
			VerifiedAt: v.VerifiedAt, TxtRecordName: challengeName(v.Domain), TxtRecordValue: challengeValue(v.Token)}
		if v.VerifiedAt != nil {
			at := v.VerifiedAt.UTC()
			proofs[i].VerifiedAt = &at
		}
	}
	out.DomainVerifications = &proofs
	if r.AttributeMapping != nil {
		var m map[string]any
		if err := json.Unmarshal(r.AttributeMapping, &m); err != nil {
			return out, err
		}
		out.AttributeMapping = &m
	}
	return out, nil
}

const providerSelect = `
	SELECT p.id, p.organization_id, p.metadata_url, p.metadata_xml_hash, p.attribute_mapping, p.is_active,
	       p.created_at, p.updated_at,
	       coalesce((SELECT array_agg(d.domain::text ORDER BY d.domain) FROM sso_domains d WHERE d.provider_id = p.id),
	                '{}') AS domains,
	       coalesce((SELECT json_agg(json_build_object('domain', d.domain, 'token', d.verification_token,
	                                                   'verified_at', d.verified_at) ORDER BY d.domain)
	                 FROM sso_domains d WHERE d.provider_id = p.id), '[]') AS verifications
	FROM sso_providers p
	WHERE p.organization_id = $1`

func listProviders(ctx context.Context, db dbx.DBTX, org uuid.UUID) ([]providerRow, error) {
	rows := []providerRow{}
	err := db.SelectContext(ctx, &rows, providerSelect+` ORDER BY p.created_at, p.id`, org)
	return rows, err
}

func getProvider(ctx context.Context, db dbx.DBTX, org uuid.UUID, id string) (providerRow, error) {
	var r providerRow
	err := db.GetContext(ctx, &r, providerSelect+` AND p.id = $2`, org, id)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return r, errNoProvider()
	}
	return r, err
}

// errNoProvider is the one answer for a missing provider and another organization's.
func errNoProvider() error { return httpx.NotFound("single sign-on provider") }

// lockProvider takes the provider's row lock for an update, or reports it missing.
func lockProvider(ctx context.Context, db dbx.DBTX, org uuid.UUID, id string) error {
	var got string
	err := db.GetContext(ctx, &got, `SELECT id FROM sso_providers WHERE organization_id = $1 AND id = $2 FOR UPDATE`, org, id)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return errNoProvider()
	}
	return err
}

// jsonb turns an optional mapping into a jsonb parameter (nil stays SQL NULL).
func jsonb(m *map[string]any) (any, error) {
	if m == nil {
		return nil, nil
	}
	b, err := json.Marshal(*m)
	return string(b), err
}

// setDomains makes domains the complete list of the provider's domains: those it keeps keep their
// token and verification, new ones start unverified with a new token. A domain that another provider,
// in any organization, has verified is refused with domain_taken, naming every such domain; claims
// nobody has proved block no one.
func setDomains(ctx context.Context, db dbx.DBTX, org uuid.UUID, providerID string, domains []string) error {
	var taken []string
	err := db.SelectContext(ctx, &taken, `
		SELECT domain::text FROM sso_domains
		WHERE domain = ANY($1::citext[]) AND provider_id <> $2 AND verified_at IS NOT NULL ORDER BY domain`,
		pq.Array(domains), providerID)
	if err != nil {
		return err
	}
	if len(taken) > 0 {
		return domainTaken(taken)
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM sso_domains WHERE provider_id = $1 AND NOT (domain = ANY($2::citext[]))`,
		providerID, pq.Array(domains)); err != nil {
		return err
	}
	tokens := make([]string, len(domains))
	for i := range tokens {
		tokens[i] = newToken()
	}
	_, err = db.ExecContext(ctx, `
		INSERT INTO sso_domains (domain, provider_id, organization_id, verification_token)
		SELECT d, $2, $3, t FROM unnest($1::text[], $4::text[]) AS n (d, t)
		ON CONFLICT (provider_id, domain) DO NOTHING`,
		pq.Array(domains), providerID, org, pq.Array(tokens))
	return err
}

func domainTaken(domains []string) error {
	msg := "a domain already belongs to another single sign-on provider"
	if len(domains) > 0 {
		msg = "already used by another single sign-on provider: " + strings.Join(domains, ", ")
	}
	e := httpx.NewError(http.StatusConflict, "domain_taken", "%s", msg)
	if len(domains) > 0 {
		e.Details = map[string]any{"domains": domains}
	}
	return e
}
