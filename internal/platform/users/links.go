package users

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/mail"
)

// sendLink issues a one-time link of the kind for u (voiding its earlier ones) and queues the e-mail
// that carries it, both in tx. p is who asked for it; the mail names them.
func (s *Service) sendLink(ctx context.Context, tx *sqlx.Tx, p *auth.Principal, u UserRow, kind auth.LinkKind) error {
	ttl := s.d.InviteTTL
	if kind == auth.LinkRecovery {
		ttl = s.d.RecoveryTTL
	}
	token, err := auth.IssueLink(ctx, tx, u.ID, kind, ttl)
	if err != nil {
		return err
	}
	var names struct {
		Organization string `db:"organization"`
		Sender       string `db:"sender"`
		SenderName   string `db:"sender_name"`
	}
	err = tx.GetContext(ctx, &names, `
		SELECT o.name::text AS organization,
		       btrim(a.first_name || ' ' || a.last_name) || ' (' || a.email || ')' AS sender,
		       btrim(a.first_name || ' ' || a.last_name) AS sender_name
		FROM organizations o, users a WHERE o.id = $1 AND a.id = $2`, u.OrganizationID, p.UserID)
	if err != nil {
		return err
	}
	m, err := composeLinkMail(linkMail{
		Kind:         kind,
		FirstName:    u.FirstName,
		Organization: names.Organization,
		Sender:       names.Sender,
		SenderName:   names.SenderName,
		Link:         s.linkURL(ctx, kind, token),
		Lifetime:     ttl,
		Expires:      time.Now().Add(ttl).UTC(),
	})
	if err != nil {
		return err
	}
	org := u.OrganizationID
	m.OrganizationID = &org
	m.To = u.Email
	_, err = mail.Enqueue(ctx, tx, s.d.Queue, m)
	return err
}

// linkURL is the web client's page that redeems the token. The configured web URL wins; without one
// the link points at the server's configured public URL (httpx.BaseURL), never at a host the request
// names, so a spoofed Host header cannot send a user's token elsewhere.
func (s *Service) linkURL(ctx context.Context, kind auth.LinkKind, token string) string {
	base := strings.TrimRight(s.d.WebURL, "/")
	if base == "" {
		base = httpx.BaseURL(ctx)
	}
	return base + "/auth/verify?type=" + url.QueryEscape(string(kind)) + "&token=" + url.QueryEscape(token)
}
