package authn

import (
	"bytes"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/httpx"
)

// LinkPagePath is where e-mailed invitation and password-reset links land (users.linkURL builds them).
const LinkPagePath = "/auth/verify"

// LinkPage serves the page an e-mailed link opens: GET shows a form to choose a password (or says why the
// link cannot be used), POST sets it. It is a plain HTML form that works without JavaScript and loads
// nothing, for people who have no other client. Setting the password goes through acceptLink, the path
// POST /auth/v1/verify takes, so both apply the same token checks and password rule.
//
// The form carries the token in a hidden field. It needs no CSRF token of its own: the page sets no
// cookie and reads none, so a forged submission can only spend a link its author already holds.
func (s *Service) LinkPage(c echo.Context) error {
	h := c.Response().Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	// The address holds the token: pages linked from here must not receive it as a referrer.
	h.Set("Referrer-Policy", "no-referrer")

	kind := auth.LinkKind(c.FormValue("type"))
	token := c.FormValue("token")
	d := pageData{Kind: string(kind), Token: token, Heading: "Set your password", Rule: auth.PasswordRule,
		MinLength: auth.PasswordMinLength, MaxLength: auth.PasswordMaxLength}
	if kind == auth.LinkInvite {
		d.Heading = "Accept your invitation"
	}
	if (kind != auth.LinkInvite && kind != auth.LinkRecovery) || token == "" || len(token) > 1024 {
		d.Problem = "This address is incomplete: open the link from the e-mail again, or copy the whole address."
		return render(c, http.StatusBadRequest, d)
	}
	ctx := c.Request().Context()
	holder, err := auth.InspectLink(ctx, s.d.DB, token, kind)
	if err != nil {
		return s.linkFailed(c, d, err)
	}
	d.Email, d.Organization, d.Form = holder.Email, holder.Organization, true
	if c.Request().Method != http.MethodPost {
		return render(c, http.StatusOK, d)
	}

	password := c.FormValue("password")
	if password != c.FormValue("confirm") {
		d.Problem = "The two passwords differ. Type the same password twice."
		return render(c, http.StatusUnprocessableEntity, d)
	}
	if _, err := s.acceptLink(ctx, kind, token, password, nil); err != nil {
		return s.linkFailed(c, d, err)
	}
	d.Form, d.Done, d.Token = false, true, ""
	d.Heading = "Password set"
	return render(c, http.StatusOK, d)
}

// linkFailed renders the page for an error of the link or of the chosen password; anything else is an
// unexpected error for the central handler (logged there, answered 500).
func (s *Service) linkFailed(c echo.Context, d pageData, err error) error {
	var weak weakPasswordError
	var limited *httpx.Error
	switch {
	case errors.As(err, &weak):
		d.Problem = "This password cannot be used: " + weak.Error() + "."
		return render(c, http.StatusUnprocessableEntity, d)
	case errors.Is(err, auth.ErrInvalidLink):
		d.Form, d.Token = false, ""
		d.Problem = capitalise(linkProblem(err)) + "."
		status := http.StatusGone
		switch {
		case errors.Is(err, auth.ErrLinkUnknown):
			status = http.StatusNotFound
		case errors.Is(err, auth.ErrLinkKind):
			status = http.StatusBadRequest
		case errors.Is(err, auth.ErrLinkInactive):
			status = http.StatusForbidden
		}
		return render(c, status, d)
	case errors.As(err, &limited) && limited.Status == http.StatusTooManyRequests:
		for k, v := range limited.Header {
			c.Response().Header()[k] = v
		}
		d.Problem = "Too many attempts from your address. Wait a minute, then try again."
		return render(c, http.StatusTooManyRequests, d)
	}
	return err
}

func render(c echo.Context, status int, d pageData) error {
	var b bytes.Buffer
	if err := linkPage.Execute(&b, d); err != nil {
		return err
	}
	return c.HTMLBlob(status, b.Bytes())
}

func capitalise(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
