package users_test

import (
	"context"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/platform/users"
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

// TestProfileCarriesEveryUserField fills every field of a user row and checks that the profile repeats
// each field of UserResponse: a field the profile forgot would answer its zero value, as worker_id did.
func TestProfileCarriesEveryUserField(t *testing.T) {
	t.Parallel()
	now := time.Now()
	row := users.UserRow{ID: uuid.New(), OrganizationID: uuid.New(), Email: "a@example.com", FirstName: "A", LastName: "B",
		Role: auth.RoleOrgAdmin, IsActive: true, HasPassword: true, LastLoginAt: &now, CreatedAt: now, UpdatedAt: now,
		ModifiedBy: "someone", WorkerID: 42}
	want := reflect.ValueOf(users.ToResponse(row))
	got := reflect.ValueOf(users.ToProfile(row, platformapi.OrganizationResponse{}))
	for i := 0; i < want.NumField(); i++ {
		name := want.Type().Field(i).Name
		if w := want.Field(i); w.IsZero() {
			t.Errorf("the sample row leaves %s empty: fill it", name)
		} else if g := got.FieldByName(name); !g.IsValid() || !reflect.DeepEqual(g.Interface(), w.Interface()) {
			t.Errorf("profile %s = %v, want %v", name, g, w)
		}
	}
}

// TestProfileWorkerID checks that a user is the same worker on /api/profile/me, /api/admin/users and
// /v1/workers.
func TestProfileWorkerID(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	env.User(t, org, auth.RoleAppUser) // an earlier worker, so that the id is not the first one by chance
	user := env.User(t, org, auth.RoleAppUser)
	staff := env.User(t, env.Org(t), auth.RoleBackoffice)
	ctx := context.Background()

	me, err := user.API.GetMyProfileWithResponse(ctx)
	if err != nil || me.JSON200 == nil {
		t.Fatalf("profile: %v %s", err, me.Body)
	}
	admin, err := staff.API.AdminListUsersWithResponse(ctx, &platformapi.AdminListUsersParams{Email: &user.Email})
	if err != nil || admin.JSON200 == nil || len(admin.JSON200.Users) != 1 {
		t.Fatalf("admin list: %v %s", err, admin.Body)
	}
	workers, err := user.V1.ListWorkersWithResponse(ctx, &v1api.ListWorkersParams{UsernameContains: &user.Email})
	if err != nil || workers.JSON200 == nil || len(workers.JSON200.Items) != 1 {
		t.Fatalf("workers: %v %s", err, workers.Body)
	}
	w := workers.JSON200.Items[0].WorkerId
	if me.JSON200.WorkerId == 0 || me.JSON200.WorkerId != admin.JSON200.Users[0].WorkerId || w != me.JSON200.WorkerId {
		t.Fatalf("worker id: profile %d, admin users %d, /v1/workers %d", me.JSON200.WorkerId, admin.JSON200.Users[0].WorkerId, w)
	}
}
