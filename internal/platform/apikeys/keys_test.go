package apikeys_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestCreateUseAndRecordLastUse: a user's key authenticates on both interfaces as that user, its hash
// (never the token) is stored, and its use is recorded.
func TestCreateUseAndRecordLastUse(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)

	k := create(t, admin.API, platformapi.ApiKeyCreateRequest{Name: "deploy", Description: new("CI pipeline")})
	if k.UserId == nil || *k.UserId != admin.UserID || k.ServiceAccountId != nil || k.OrganizationId != org {
		t.Fatalf("key owner: user %v service account %v org %v", k.UserId, k.ServiceAccountId, k.OrganizationId)
	}
	if k.ModifiedBy != admin.UserID.String() || k.Description == nil || *k.Description != "CI pipeline" {
		t.Fatalf("modified_by %q description %v", k.ModifiedBy, k.Description)
	}
	var stored []byte
	if err := env.DB.Get(&stored, `SELECT token_hash FROM api_keys WHERE id = $1`, k.Id); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stored, auth.HashToken(k.Token)) {
		t.Fatal("the stored hash is not the token's")
	}

	keyAPI, keyV1 := env.Clients(t, k.Token)
	if st := v1Status(t, keyV1); st == http.StatusUnauthorized {
		t.Fatalf("/v1 with a valid key: %d", st)
	}
	st, got := getStatus(t, keyAPI, k.Id)
	if st != http.StatusOK {
		t.Fatalf("get own key with it: %d", st)
	}
	if got.LastUsedAt == nil {
		t.Fatal("last_used_at is still null after the key was used")
	}
	if got.Name != "deploy" || got.TokenPrefix != k.TokenPrefix || got.UserId == nil || *got.UserId != admin.UserID {
		t.Fatalf("read back %+v", got)
	}
	// The token is never shown again.
	res, err := admin.API.GetApiKeyWithResponse(ctx, k.Id)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(res.Body), k.Token) {
		t.Fatal("a read returned the full token")
	}
}

// TestAnyRoleCreatesKeysForItself, with a JWT or with an API key.
func TestAnyRoleCreatesKeysForItself(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	for _, c := range []*testkit.Caller{
		env.User(t, org, auth.RoleAppUser), env.User(t, org, auth.RoleIntegration),
		env.KeyCaller(t, org, auth.RoleAppUser), env.KeyCaller(t, org, auth.RoleBackoffice),
	} {
		k := create(t, c.API, platformapi.ApiKeyCreateRequest{Name: "mine"})
		if k.UserId == nil || *k.UserId != c.UserID || k.ServiceAccountId != nil {
			t.Fatalf("%s: key belongs to user %v service account %v", c.Role, k.UserId, k.ServiceAccountId)
		}
	}
}

// TestCreateValidation: a blank or missing name is refused with 422, and nothing is written.
func TestCreateValidation(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	c := env.User(t, org, auth.RoleAppUser)
	for _, name := range []string{"", "   ", strings.Repeat("x", 256)} {
		res, err := c.API.CreateApiKeyWithResponse(ctx, platformapi.ApiKeyCreateRequest{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, "name "+name, res.HTTPResponse, res.Body, http.StatusUnprocessableEntity)
	}
	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM api_keys WHERE organization_id = $1`, org); err != nil || n != 0 {
		t.Fatalf("%d keys written (%v)", n, err)
	}
	res, err := env.API.ListApiKeysWithResponse(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "list without credentials", res.HTTPResponse, res.Body, http.StatusUnauthorized)
}

// TestServiceAccountKeys: admins create service accounts with a key; the account is an integration
// user without a password, its key sees only its own keys, and it keeps new keys for itself.
func TestServiceAccountKeys(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	create(t, admin.API, platformapi.ApiKeyCreateRequest{Name: "admin's own"})

	long := strings.Repeat("é", 255) // longer than a user's name may be
	sa := create(t, admin.API, platformapi.ApiKeyCreateRequest{Name: long, ServiceAccount: new(true)})
	if sa.ServiceAccountId == nil || sa.UserId != nil {
		t.Fatalf("service-account key: user %v service account %v", sa.UserId, sa.ServiceAccountId)
	}
	var u struct {
		Org       uuid.UUID `db:"organization_id"`
		Role      string    `db:"role"`
		IsSA      bool      `db:"is_service_account"`
		Password  *string   `db:"password_hash"`
		Email     string    `db:"email"`
		FirstName string    `db:"first_name"`
	}
	if err := env.DB.Get(&u, `SELECT organization_id, role, is_service_account, password_hash, email, first_name
		FROM users WHERE id = $1`, *sa.ServiceAccountId); err != nil {
		t.Fatal(err)
	}
	if u.Org != org || u.Role != "integration" || !u.IsSA || u.Password != nil || !strings.HasPrefix(u.Email, "svc-") ||
		u.FirstName != strings.Repeat("é", 100) {
		t.Fatalf("service account row %+v", u)
	}

	saAPI, saV1 := env.Clients(t, sa.Token)
	if st := v1Status(t, saV1); st == http.StatusUnauthorized {
		t.Fatalf("/v1 with a service-account key: %d", st)
	}
	// Its role is integration: it may not create service accounts, and it sees only its own keys.
	res, err := saAPI.CreateApiKeyWithResponse(ctx, platformapi.ApiKeyCreateRequest{Name: "x", ServiceAccount: new(true)})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "service account creating a service account", res.HTTPResponse, res.Body, http.StatusForbidden)
	own := create(t, saAPI, platformapi.ApiKeyCreateRequest{Name: "rotated"})
	if own.ServiceAccountId == nil || *own.ServiceAccountId != *sa.ServiceAccountId || own.UserId != nil {
		t.Fatalf("a service account's new key: user %v service account %v", own.UserId, own.ServiceAccountId)
	}
	seen, total := list(t, saAPI, false)
	if total != 2 || len(seen) != 2 {
		t.Fatalf("the service account sees %d keys (total %d), want its 2", len(seen), total)
	}
	if _, ok := seen[sa.Id]; !ok {
		t.Fatal("the service account does not see its key")
	}
	// Admins see every key of the organization, service-account keys included.
	seen, total = list(t, admin.API, false)
	if total != 3 || len(seen) != 3 {
		t.Fatalf("the admin sees %d keys (total %d), want 3", len(seen), total)
	}
	if st, _ := getStatus(t, admin.API, own.Id); st != http.StatusOK {
		t.Fatalf("admin reading a service-account key: %d", st)
	}
}

// TestOnlyAdminsCreateServiceAccounts: other roles get 403 and nothing is written.
func TestOnlyAdminsCreateServiceAccounts(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	for _, c := range []*testkit.Caller{env.User(t, org, auth.RoleAppUser), env.KeyCaller(t, org, auth.RoleIntegration)} {
		res, err := c.API.CreateApiKeyWithResponse(ctx, platformapi.ApiKeyCreateRequest{Name: "bot", ServiceAccount: new(true)})
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, string(c.Role)+" creating a service account", res.HTTPResponse, res.Body, http.StatusForbidden)
	}
	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM users WHERE organization_id = $1 AND is_service_account`, org); err != nil || n != 0 {
		t.Fatalf("%d service accounts written (%v)", n, err)
	}
	bo := env.User(t, org, auth.RoleBackoffice)
	if k := create(t, bo.API, platformapi.ApiKeyCreateRequest{Name: "bot", ServiceAccount: new(true)}); k.ServiceAccountId == nil {
		t.Fatal("backoffice could not create a service account")
	}
}
