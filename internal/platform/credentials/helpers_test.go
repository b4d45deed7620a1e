package credentials_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

// newSecret is a value unlikely to appear anywhere by chance, so finding it in a body or a column
// means it leaked.
func newSecret() string { return "sekrit-" + uuid.NewString() }

// create stores a vendor_b credential with secret through the API and fails the test unless it answers 201.
func create(t *testing.T, c *testkit.Caller, name, secret string) platformapi.CredentialsResponse {
	t.Helper()
	res, err := c.API.CreateCredentialWithResponse(ctx, platformapi.CredentialCreateRequest{Name: name,
		Provider: "vendor_b", CredentialType: "api_key", Data: &map[string]any{"api_key": secret}})
	testkit.Expect(t, res, err, 201)
	noSecret(t, res.Body, secret)
	return *res.JSON201
}

// noSecret fails when a response body carries the secret.
func noSecret(t *testing.T, body []byte, secret string) {
	t.Helper()
	if bytes.Contains(body, []byte(secret)) {
		t.Fatalf("a response shows the secret: %s", body)
	}
}

// names lists the names the caller sees on one page of 100, optionally of one provider.
func names(t *testing.T, c *testkit.Caller, provider *platformapi.ProviderApiEnum) ([]string, int) {
	t.Helper()
	res, err := c.API.ListCredentialsWithResponse(ctx, &platformapi.ListCredentialsParams{Limit: new(100), Provider: provider})
	testkit.Expect(t, res, err, 200)
	out := []string{}
	for _, c := range res.JSON200.Credentials {
		out = append(out, c.Name)
	}
	return out, res.JSON200.Total
}

// problem is one item of a 422 HTTPValidationError, read loosely: loc steps are strings and numbers.
type problem struct {
	Loc  []any  `json:"loc"`
	Msg  string `json:"msg"`
	Type string `json:"type"`
}

// locs reads a 422 HTTPValidationError body and returns each item's loc joined with dots.
func locs(t *testing.T, body []byte) []string {
	t.Helper()
	var v struct{ Detail []problem }
	if err := json.Unmarshal(body, &v); err != nil || len(v.Detail) == 0 {
		t.Fatalf("not an HTTPValidationError: %s", body)
	}
	out := []string{}
	for _, d := range v.Detail {
		parts := make([]string, len(d.Loc))
		for i, l := range d.Loc {
			parts[i] = fmt.Sprint(l)
		}
		out = append(out, strings.Join(parts, "."))
	}
	return out
}
