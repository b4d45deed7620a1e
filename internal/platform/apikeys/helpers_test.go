package apikeys_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
)

var ctx = context.Background()

// wantStatus fails the test when a response has another status, showing its body.
func wantStatus(t *testing.T, what string, res *http.Response, body []byte, want int) {
	t.Helper()
	if res.StatusCode != want {
		t.Fatalf("%s: status %d, want %d: %s", what, res.StatusCode, want, body)
	}
}

// create issues a key through the API and fails the test unless it answers 201.
func create(t *testing.T, api *platformapi.ClientWithResponses, body platformapi.ApiKeyCreateRequest) *platformapi.ApiKeyCreateResponse {
	t.Helper()
	res, err := api.CreateApiKeyWithResponse(ctx, body)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "create key", res.HTTPResponse, res.Body, http.StatusCreated)
	k := res.JSON201
	if !strings.HasPrefix(k.Token, "lw_") || !strings.HasPrefix(k.Token, k.TokenPrefix) || len(k.TokenPrefix) != 12 {
		t.Fatalf("token %q and prefix %q do not match", k.Token, k.TokenPrefix)
	}
	if k.LastUsedAt != nil || k.RevokedAt != nil {
		t.Fatalf("a new key has last_used_at %v and revoked_at %v, want both null", k.LastUsedAt, k.RevokedAt)
	}
	return k
}

// list returns every key id the caller sees on the first page of 100.
func list(t *testing.T, api *platformapi.ClientWithResponses, includeRevoked bool) (ids map[uuid.UUID]platformapi.ApiKeyResponse, total int) {
	t.Helper()
	res, err := api.ListApiKeysWithResponse(ctx, &platformapi.ListApiKeysParams{Limit: new(100), IncludeRevoked: &includeRevoked})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "list keys", res.HTTPResponse, res.Body, http.StatusOK)
	ids = map[uuid.UUID]platformapi.ApiKeyResponse{}
	for _, k := range res.JSON200.ApiKeys {
		ids[k.Id] = k
	}
	return ids, res.JSON200.Total
}

// getStatus reads a key and returns the status.
func getStatus(t *testing.T, api *platformapi.ClientWithResponses, id uuid.UUID) (int, *platformapi.ApiKeyResponse) {
	t.Helper()
	res, err := api.GetApiKeyWithResponse(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode(), res.JSON200
}

// revokeStatus revokes a key and returns the status.
func revokeStatus(t *testing.T, api *platformapi.ClientWithResponses, id uuid.UUID) int {
	t.Helper()
	res, err := api.RevokeApiKeyWithResponse(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode()
}

// v1Status calls a /v1 route with the client's credential. /v1 routes may not be served yet (501);
// anything but 401 shows the credential was accepted.
func v1Status(t *testing.T, v1 *v1api.ClientWithResponses) int {
	t.Helper()
	res, err := v1.ListAppsWithResponse(ctx, &v1api.ListAppsParams{})
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode()
}
