package users_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

func TestMyProfile(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	var orgName string
	if err := env.DB.Get(&orgName, `SELECT name FROM organizations WHERE id = $1`, org); err != nil {
		t.Fatal(err)
	}

	// A service account and its key, as the API key routes create them.
	var sa uuid.UUID
	if err := env.DB.Get(&sa, `INSERT INTO users (organization_id, email, first_name, last_name, role, is_service_account)
		VALUES ($1, $2, 'Nightly', 'Import', 'integration', true) RETURNING id`, org, "sa-"+uuid.NewString()[:8]+"@service.local"); err != nil {
		t.Fatal(err)
	}
	token, prefix := auth.NewAPIKey()
	if _, err := env.DB.Exec(`INSERT INTO api_keys (organization_id, service_account_id, name, token_prefix, token_hash)
		VALUES ($1, $2, 'nightly import', $3, $4)`, org, sa, prefix, auth.HashToken(token)); err != nil {
		t.Fatal(err)
	}
	saAPI, _ := env.Clients(t, token)

	jwt := env.User(t, org, auth.RoleAppUser)
	key := env.KeyCaller(t, org, auth.RoleOrgAdmin)
	for _, c := range []struct {
		name string
		api  *platformapi.ClientWithResponses
		id   uuid.UUID
		role platformapi.UserRole
	}{
		{"JWT", jwt.API, jwt.UserID, platformapi.AppUser},
		{"user API key", key.API, key.UserID, platformapi.OrgAdmin},
		{"service-account key", saAPI, sa, platformapi.Integration},
	} {
		res, err := c.api.GetMyProfileWithResponse(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != http.StatusOK {
			t.Errorf("%s: status %d: %s", c.name, res.StatusCode(), res.Body)
			continue
		}
		p := res.JSON200
		if p.Id != c.id || p.Role != c.role || p.Status != platformapi.UserStatusActive || p.OrganizationId != org ||
			p.Organization.Id != org || p.Organization.Name != orgName || !*p.Organization.IsActive {
			t.Errorf("%s: got %+v", c.name, p)
		}
	}

	res, err := env.API.GetMyProfileWithResponse(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != http.StatusUnauthorized {
		t.Errorf("anonymous: status %d", res.StatusCode())
	}
}
