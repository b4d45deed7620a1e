package flows_test

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestInvitations: invited and skipped users, no duplicates, the list, and who may revoke.
func TestInvitations(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	creator := env.User(t, org, auth.RoleAppUser)
	reviewer := env.User(t, org, auth.RoleAppUser)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	robot, _ := env.NewUser(t, org, auth.RoleIntegration)
	stranger, _ := env.NewUser(t, env.Org(t), auth.RoleAppUser)
	outsider := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	f := createFlow(t, creator.API, "Private", validDef, new(platformapi.Private))

	asked := []uuid.UUID{reviewer.UserID, robot, stranger, reviewer.UserID, admin.UserID, uuid.New()}
	res, err := creator.API.InviteFlowUsersWithResponse(ctx, f.Id, platformapi.FlowInvitationRequest{UserIds: asked})
	testkit.Expect(t, res, err, http.StatusOK)
	r := res.JSON200
	if !reflect.DeepEqual(r.InvitedUserIds, []uuid.UUID{reviewer.UserID, admin.UserID}) || len(r.SkippedUserIds) != 3 ||
		r.TotalInvitations != 2 || r.Message != "2 users invited, 3 skipped" || r.FlowId != f.Id {
		t.Fatalf("invite answered %+v", r)
	}
	again, err := creator.API.InviteFlowUsersWithResponse(ctx, f.Id, platformapi.FlowInvitationRequest{UserIds: []uuid.UUID{reviewer.UserID}})
	testkit.Expect(t, again, err, http.StatusOK)
	if again.JSON200.TotalInvitations != 2 || len(again.JSON200.InvitedUserIds) != 1 {
		t.Fatalf("inviting again answered %+v", again.JSON200)
	}
	denied, err := reviewer.API.InviteFlowUsersWithResponse(ctx, f.Id, platformapi.FlowInvitationRequest{UserIds: []uuid.UUID{admin.UserID}})
	testkit.Expect(t, denied, err, http.StatusForbidden)

	list, err := reviewer.API.ListFlowInvitationsWithResponse(ctx, f.Id)
	testkit.Expect(t, list, err, http.StatusOK)
	if l := *list.JSON200; len(l) != 2 || l[0].UserId != reviewer.UserID || l[0].Role != platformapi.UserRole("app_user") ||
		l[0].OrganizationId != org || string(l[0].Email) == "" {
		t.Fatalf("invitations %+v", l)
	}
	foreign, err := outsider.API.ListFlowInvitationsWithResponse(ctx, f.Id)
	testkit.Expect(t, foreign, err, http.StatusNotFound)

	rev, err := reviewer.API.RevokeFlowInvitationWithResponse(ctx, f.Id, admin.UserID)
	testkit.Expect(t, rev, err, http.StatusForbidden)
	rev, err = reviewer.API.RevokeFlowInvitationWithResponse(ctx, f.Id, reviewer.UserID) // leaving the flow
	testkit.Expect(t, rev, err, http.StatusNoContent)
	if st, _ := getStatus(t, reviewer.API, f.Id); st != http.StatusNotFound {
		t.Fatalf("a user whose invitation was revoked still reads the private flow: %d", st)
	}
	rev, err = creator.API.RevokeFlowInvitationWithResponse(ctx, f.Id, reviewer.UserID)
	testkit.Expect(t, rev, err, http.StatusNotFound)
	rev, err = creator.API.RevokeFlowInvitationWithResponse(ctx, f.Id, admin.UserID)
	testkit.Expect(t, rev, err, http.StatusNoContent)
}
