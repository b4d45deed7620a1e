package integrations

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/netguard"
	"github.com/loopwork/loopwork/internal/platform/credentials"
)

// Target is what a describer works from: the integration and, when it has one, its opened credential.
type Target struct {
	Org         uuid.UUID
	FlowID      uuid.UUID
	TaskName    string
	Provider    string
	Secret      *credentials.Secret
	Guard       *netguard.Guard
	Description string
}

// Describer fetches, live, a plain-text description of what an integration connects to. It returns
// errors wrapping netguard.ErrBlocked for a refused host and ErrUpstream for a target that could not
// be reached or refused the login.
type Describer func(ctx context.Context, t Target) (string, error)

// ErrUpstream marks an outside service that did not answer as it should.
var ErrUpstream = errors.New("upstream unavailable")

func builtinDescribers() map[string]Describer {
	return map[string]Describer{"sql_database": describeSQL, "sftp": describeSFTP, "file_storage": describeBucket,
		"email_service": describeSMTP}
}

// GetIntegrationMetadata describes what the integration connects to, through its credential.
func (s *Service) GetIntegrationMetadata(ctx context.Context, req platformapi.GetIntegrationMetadataRequestObject) (platformapi.GetIntegrationMetadataResponseObject, error) {
	p := auth.MustFromContext(ctx)
	r, err := get(ctx, s.db, p.OrganizationID, req.Id)
	if errors.Is(err, dbx.ErrNotFound) {
		return nil, httpx.NotFound(what)
	}
	if err != nil {
		return nil, err
	}
	t := Target{Org: p.OrganizationID, FlowID: r.FlowID, TaskName: r.TaskName, Guard: s.guard, Description: r.Description}
	if r.CredentialID != nil {
		// Describing connects with the credential, so the caller needs the right to use it; one the
		// caller may not use is the same 404 as one that is gone.
		usable, err := credentials.Usable(ctx, s.db, p.OrganizationID, p.UserID, []uuid.UUID{*r.CredentialID})
		if err != nil {
			return nil, err
		}
		if !usable[*r.CredentialID] {
			return nil, httpx.NotFound("credential")
		}
		sec, err := s.secrets.Open(ctx, p.OrganizationID, *r.CredentialID)
		if err != nil {
			return nil, err
		}
		t.Secret, t.Provider = &sec, sec.Provider
	}
	describe, ok := s.describers[t.Provider]
	if !ok {
		describe = describeProvider
	}
	text, err := describe(ctx, t)
	switch {
	case errors.Is(err, netguard.ErrBlocked):
		return nil, httpx.BadRequest("ssrf_blocked",
			"the integration's host is private, loopback or link-local and the server does not allow it")
	case errors.Is(err, ErrUpstream):
		// The cause is the driver's or the service's message, which names neither the password nor
		// any other secret; it helps the caller fix a wrong host or database name.
		return nil, httpx.NewError(http.StatusBadGateway, "upstream_unavailable", "%v", err)
	case err != nil:
		return nil, err
	}
	return platformapi.GetIntegrationMetadata200JSONResponse{Metadata: text}, nil
}

// describeProvider is the description of providers with nothing to list: the provider and the
// credential type.
func describeProvider(_ context.Context, t Target) (string, error) {
	if t.Secret == nil {
		return fmt.Sprintf("Task %q of flow %s uses no credential.", t.TaskName, t.FlowID), nil
	}
	ct := "none"
	if t.Secret.CredentialType != nil {
		ct = *t.Secret.CredentialType
	}
	return fmt.Sprintf("Provider: %s\nCredential type: %s\nTask: %s", t.Provider, ct, t.TaskName), nil
}
