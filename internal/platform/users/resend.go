package users

import (
	"context"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// resendWindow is how often one address may be sent a new link.
const resendWindow = time.Minute

// ResendInvitation e-mails a new link to an invited user (an invitation) or an active one (a password
// link). Backoffice may reach any organization; if the address belongs to accounts in several, each
// account gets its own link, since each is a separate sign-in.
func (s *Service) ResendInvitation(ctx context.Context, req platformapi.ResendInvitationRequestObject) (platformapi.ResendInvitationResponseObject, error) {
	p := auth.MustFromContext(ctx)
	// Deactivated users, users of deactivated organizations and service accounts cannot redeem a link,
	// so for them the route answers as for an unknown address.
	var targets []UserRow
	err := s.d.DB.SelectContext(ctx, &targets, `SELECT `+SelectColumns+`
		FROM users u JOIN organizations o ON o.id = u.organization_id
		WHERE u.email = $1 AND ($2::uuid IS NULL OR u.organization_id = $2)
		  AND u.is_active AND o.is_active AND NOT u.is_service_account
		ORDER BY u.created_at, u.id`, string(req.Body.Email), scope(p))
	if err != nil {
		return nil, err
	}
	if len(targets) == 0 {
		return nil, httpx.NotFound("user")
	}
	ok, retry, err := s.d.Limiter.Allow(ctx, "resend-invite:"+strings.ToLower(targets[0].Email), 1, resendWindow)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, httpx.TooManyRequests(retry, "a link was sent to this address less than a minute ago")
	}
	invites := 0
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		for _, u := range targets {
			kind := auth.LinkRecovery
			if u.Status() == platformapi.UserStatusInvited {
				kind = auth.LinkInvite
				invites++
			}
			if err := s.sendLink(ctx, tx, p, u, kind); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	msg := "Links sent"
	switch invites {
	case len(targets):
		msg = "Invitation sent"
	case 0:
		msg = "Password link sent"
	}
	return platformapi.ResendInvitation200JSONResponse{Success: true, Message: msg, Email: targets[0].Email}, nil
}
