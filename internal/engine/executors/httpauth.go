package executors

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"
)

// Credential is an organization's stored credential, opened: what authenticates a request.
type Credential struct {
	Provider, Type string
	Data           map[string]any
}

// Credentials opens a credential of the organization; ErrNoCredential when it has no such credential.
type Credentials func(ctx context.Context, org, id uuid.UUID) (Credential, error)

// ErrNoCredential is what Credentials answers for a credential the organization does not have.
var ErrNoCredential = errors.New("no such credential")

// authenticate sets the Authorization header from the task's credential: a bearer token for a
// credential with an api_key, basic auth for one with a username and password. A header the task sets
// itself wins. A credential that is not one of these (an OAuth client, an SSH key) fails the task, as
// does one the organization does not have.
func authenticate(ctx context.Context, creds Credentials, in Input, req *http.Request, id string) error {
	cid, err := uuid.Parse(id)
	if err != nil {
		return Permanent(errors.New("credential_id: not a UUID"))
	}
	if creds == nil {
		return Permanent(errors.New("credential_id: this server applies no credentials to HTTP requests"))
	}
	c, err := creds(ctx, in.Org, cid)
	if errors.Is(err, ErrNoCredential) {
		return Permanent(fmt.Errorf("credential_id: %w", err))
	}
	if err != nil {
		return err
	}
	if req.Header.Get("Authorization") != "" {
		return nil
	}
	str := func(k string) string { s, _ := c.Data[k].(string); return s }
	switch {
	case str("api_key") != "":
		req.Header.Set("Authorization", "Bearer "+str("api_key"))
	case str("username") != "" && str("password") != "":
		req.SetBasicAuth(str("username"), str("password"))
	default:
		return Permanent(fmt.Errorf("credential_id: a %s credential of type %s cannot authenticate an HTTP request "+
			"(one with an api_key or a username and password can)", c.Provider, c.Type))
	}
	return nil
}
