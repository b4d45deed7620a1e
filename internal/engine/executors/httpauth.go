package executors

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/netguard"
)

// Credential is an organization's stored credential, opened: what authenticates a request.
type Credential struct {
	Provider, Type string
	Data           map[string]any
	// AllowedDomains are the hosts the credential may be sent to (netguard.DomainAllowed).
	AllowedDomains []string
}

// Credentials opens a credential of the organization for the attempt ctx runs; ErrNoCredential when the
// organization has no such credential or the attempt may not use it (the two look the same).
type Credentials func(ctx context.Context, org, id uuid.UUID) (Credential, error)

// ErrNoCredential is what Credentials answers for a credential the organization does not have.
var ErrNoCredential = errors.New("no such credential")

// authorization is the Authorization header a credential makes, and the hosts it may be sent to.
type authorization struct {
	header  string
	domains []string
}

// authenticate opens the task's credential and says how it authenticates: a bearer token for a
// credential with an api_key, basic auth for one with a username and password. A credential that is
// not one of these (an OAuth client, an SSH key) fails the task, as does one the organization does not
// have or the attempt may not use. nil when an Authorization header set by the task itself wins.
func authenticate(ctx context.Context, creds Credentials, in Input, req *http.Request, id string) (*authorization, error) {
	cid, err := uuid.Parse(id)
	if err != nil {
		return nil, Permanent(errors.New("credential_id: not a UUID"))
	}
	if creds == nil {
		return nil, Permanent(errors.New("credential_id: this server applies no credentials to HTTP requests"))
	}
	c, err := creds(ctx, in.Org, cid)
	if errors.Is(err, ErrNoCredential) {
		return nil, Permanent(fmt.Errorf("credential_id: %w", err))
	}
	if err != nil {
		return nil, err
	}
	if req.Header.Get("Authorization") != "" {
		return nil, nil
	}
	str := func(k string) string { s, _ := c.Data[k].(string); return s }
	probe := &http.Request{Header: http.Header{}}
	switch {
	case str("api_key") != "":
		probe.Header.Set("Authorization", "Bearer "+str("api_key"))
	case str("username") != "" && str("password") != "":
		probe.SetBasicAuth(str("username"), str("password"))
	default:
		return nil, Permanent(fmt.Errorf("credential_id: a %s credential of type %s cannot authenticate an HTTP request "+
			"(one with an api_key or a username and password can)", c.Provider, c.Type))
	}
	if !netguard.DomainAllowed(c.AllowedDomains, req.URL.Host) {
		return nil, Permanent(fmt.Errorf("credential_id: the credential may not be sent to %s (it is not among the "+
			"credential's allowed_domains)", req.URL.Hostname()))
	}
	return &authorization{header: probe.Header.Get("Authorization"), domains: c.AllowedDomains}, nil
}

// withAuthorization is client with a transport that attaches a's header to each request it sends, the
// first and every redirect, whose host is among a's domains, and to no other: a redirect to another
// host is followed without the credential. The header is never set on the request the client is given,
// so the client's own rules for copying headers across redirects never see it.
func withAuthorization(client *http.Client, a *authorization) *http.Client {
	if a == nil {
		return client
	}
	cc := *client
	base := cc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	cc.Transport = authTransport{base: base, auth: a}
	return &cc
}

type authTransport struct {
	base http.RoundTripper
	auth *authorization
}

// RoundTrip sends req, with the credential when its host is allowed. A RoundTripper must not change
// the request it is given, so the credential goes on a copy.
func (t authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("Authorization") != "" || !netguard.DomainAllowed(t.auth.domains, req.URL.Host) {
		return t.base.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", t.auth.header)
	return t.base.RoundTrip(r)
}
