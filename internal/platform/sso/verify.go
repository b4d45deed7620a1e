package sso

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// An organization proves it owns a domain by publishing a random token of the provider's in a TXT
// record under the domain, which only whoever controls the domain's DNS can do.
const (
	challengeLabel  = "_loopwork-challenge."
	challengePrefix = "loopwork-domain-verification="
	// lookupTimeout bounds one TXT lookup, so a slow DNS server holds no request for long.
	lookupTimeout = 5 * time.Second
)

func challengeName(domain string) string { return challengeLabel + domain }
func challengeValue(token string) string { return challengePrefix + token }

// newToken is 128 random bits: unguessable, and different for every provider and domain.
func newToken() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// NewResolver returns the resolver of ownership checks: one that asks the DNS server at addr
// (host:port) over the DNS protocol, or the system's resolver when addr is empty.
func NewResolver(addr string) *net.Resolver {
	if addr == "" {
		return net.DefaultResolver
	}
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
}

// VerifySsoDomain checks the domain's TXT record and, when it holds the provider's token, marks the
// domain verified. The DNS lookup happens before any transaction starts.
func (s *Service) VerifySsoDomain(ctx context.Context, req platformapi.VerifySsoDomainRequestObject) (platformapi.VerifySsoDomainResponseObject, error) {
	p := auth.MustFromContext(ctx)
	domain := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(req.Domain)), ".")
	var claim struct {
		Token      string     `db:"verification_token"`
		VerifiedAt *time.Time `db:"verified_at"`
	}
	err := s.d.DB.GetContext(ctx, &claim, `
		SELECT d.verification_token, d.verified_at FROM sso_domains d JOIN sso_providers p ON p.id = d.provider_id
		WHERE p.organization_id = $1 AND p.id = $2 AND d.domain = $3`, p.OrganizationID, req.Id, domain)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return nil, httpx.NotFound("single sign-on domain")
	}
	if err != nil {
		return nil, err
	}
	if claim.VerifiedAt == nil {
		if err := s.verifiedElsewhere(ctx, req.Id, domain); err != nil {
			return nil, err
		}
		if err := s.checkRecord(ctx, domain, challengeValue(claim.Token)); err != nil {
			return nil, err
		}
		if err := s.markVerified(ctx, p, req.Id, domain); err != nil {
			return nil, err
		}
	}
	row, err := getProvider(ctx, s.d.DB, p.OrganizationID, req.Id)
	if err != nil {
		return nil, err
	}
	out, err := row.response()
	return platformapi.VerifySsoDomain200JSONResponse(out), err
}

// verifiedElsewhere refuses a domain another provider has verified, before any DNS lookup.
func (s *Service) verifiedElsewhere(ctx context.Context, providerID, domain string) error {
	var n int
	err := s.d.DB.GetContext(ctx, &n, `SELECT count(*) FROM sso_domains WHERE domain = $1 AND provider_id <> $2
		AND verified_at IS NOT NULL`, domain, providerID)
	if err == nil && n > 0 {
		return domainTaken([]string{domain})
	}
	return err
}

// checkRecord looks for want among the TXT records of the domain's challenge name; the answer to a
// missing or different record says what was found, so the administrator can correct it.
func (s *Service) checkRecord(ctx context.Context, domain, want string) error {
	name := challengeName(domain)
	records, err := s.lookupChallenge(ctx, domain)
	if err != nil {
		return httpx.NewError(http.StatusServiceUnavailable, "dns_unavailable",
			"the TXT records of %s could not be looked up; try again later", name)
	}
	if holds(records, want) {
		return nil
	}
	msg := fmt.Sprintf("no TXT record at %s: publish one with the value %s", name, want)
	if len(records) > 0 {
		msg = fmt.Sprintf("the TXT records at %s (%s) do not hold %s", name, quoteAll(records), want)
	}
	return httpx.Invalid([]any{"path", "domain"}, "domain_not_verified", msg)
}

// lookupChallenge returns the TXT records of the domain's challenge name. A name that does not exist,
// or has no TXT records, is an answer (no records); an error means DNS gave no answer at all (a
// timeout, a server failure), which says nothing about the domain.
func (s *Service) lookupChallenge(ctx context.Context, domain string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	records, err := s.d.Resolver.LookupTXT(ctx, challengeName(domain))
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return nil, nil
	}
	return records, err
}

func holds(records []string, want string) bool {
	for _, r := range records {
		if strings.TrimSpace(r) == want {
			return true
		}
	}
	return false
}

func quoteAll(records []string) string {
	const most = 5
	q := make([]string, 0, most)
	for i, r := range records {
		if i == most {
			q = append(q, "…")
			break
		}
		if len(r) > 100 {
			r = r[:100] + "…"
		}
		q = append(q, fmt.Sprintf("%q", r))
	}
	return strings.Join(q, ", ")
}

// markVerified records the proof. The unique index on verified domains settles a race with another
// provider verifying the same domain at the same moment: the second answers domain_taken.
func (s *Service) markVerified(ctx context.Context, p *auth.Principal, providerID, domain string) error {
	err := dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		if err := lockProvider(ctx, tx, p.OrganizationID, providerID); err != nil {
			return err
		}
		// A verification is a check, passed: the daily re-check counts from it, without failures.
		if _, err := tx.ExecContext(ctx, `UPDATE sso_domains SET verified_at = now(), checked_at = now(),
			next_check_at = now() + make_interval(secs => $3), failed_checks = 0
			WHERE provider_id = $1 AND domain = $2 AND verified_at IS NULL`, providerID, domain, recheckAfter.Seconds()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE sso_providers SET modified_by = $2 WHERE id = $1`, providerID, p.Actor())
		return err
	})
	var ce *dbx.ConstraintError
	if err = dbx.Translate(err); errors.As(err, &ce) && errors.Is(err, dbx.ErrConflict) && ce.Constraint == "sso_domains_verified_idx" {
		return domainTaken([]string{domain})
	}
	return err
}
