package users

import (
	"context"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/platform/orgs"
)

// GetMyProfile returns the caller's own record and organization. The principal is the signed-in user,
// the owner of a user API key, or the service account of a service-account key, so one lookup by the
// principal's user id serves every credential.
func (s *Service) GetMyProfile(ctx context.Context, _ platformapi.GetMyProfileRequestObject) (platformapi.GetMyProfileResponseObject, error) {
	p := auth.MustFromContext(ctx)
	org := p.OrganizationID
	u, err := loadUser(ctx, s.d.DB, p.UserID, &org, false)
	if err != nil {
		return nil, err
	}
	o, err := orgs.Load(ctx, s.d.DB, org)
	if err != nil {
		return nil, err
	}
	return platformapi.GetMyProfile200JSONResponse(ToProfile(u, o.Response())), nil
}
