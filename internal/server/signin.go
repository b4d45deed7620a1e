package server

import (
	"context"
	"errors"
	"html/template"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/queueui"
)

// A browser sends no Authorization header of its own, and River's UI is a browser application. The
// sign-in page takes a backoffice user's access token or API key once and keeps it in a cookie that
// only the operators' routes read: HttpOnly (no script reads it), SameSite=Strict (no other site's
// page sends it, so no other site can retry or delete jobs through it) and limited to /admin.

// SignInPath is the operators' sign-in page.
const SignInPath = "/admin/signin"

// staffCookie holds the credential of a signed-in operator.
const staffCookie = "loopwork_staff"

var signInPage = template.Must(template.New("signin").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>loopwork operators</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: sans-serif; max-width: 36em; margin: 4em auto">
<h1>loopwork operators</h1>
{{if .Problem}}<p role="alert"><strong>{{.Problem}}</strong></p>{{end}}
<form method="post" action="` + SignInPath + `">
<p><label for="token">Access token or API key of a backoffice user</label><br>
<input id="token" name="token" type="password" autocomplete="off" required style="width: 100%"></p>
<p><button type="submit">Open River's UI</button></p>
</form>
<p>The credential is kept in a cookie for this site's operator pages only, until the browser closes.</p>
</body></html>
`))

// mountSignIn serves the sign-in page and the form it posts.
func mountSignIn(e *echo.Echo, resolve func(context.Context, string) (*auth.Principal, error)) {
	e.GET(SignInPath, func(c echo.Context) error { return showSignIn(c, http.StatusOK, "") })
	e.POST(SignInPath, func(c echo.Context) error {
		token := strings.TrimSpace(c.FormValue("token"))
		if token == "" {
			return showSignIn(c, http.StatusUnauthorized, "Enter a credential.")
		}
		p, err := resolve(c.Request().Context(), token)
		if refused(err) {
			return showSignIn(c, http.StatusUnauthorized, "That credential is not valid.")
		}
		if err != nil {
			return err
		}
		if !p.IsBackoffice() {
			return showSignIn(c, http.StatusForbidden, "Only backoffice users may open the operators' pages.")
		}
		c.SetCookie(&http.Cookie{Name: staffCookie, Value: token, Path: "/admin", HttpOnly: true,
			SameSite: http.SameSiteStrictMode, Secure: c.Scheme() == "https"})
		return c.Redirect(http.StatusSeeOther, queueui.Prefix+"/")
	}, middleware.BodyLimit("16K"))
}

func showSignIn(c echo.Context, status int, problem string) error {
	c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	c.Response().Header().Set("Cache-Control", "no-store")
	c.Response().WriteHeader(status)
	return signInPage.Execute(c.Response(), struct{ Problem string }{problem})
}

// staffCredential is the request's credential: its Authorization header, else the sign-in cookie.
func staffCredential(r *http.Request) string {
	if t := bearerToken(r.Header.Get("Authorization")); t != "" {
		return t
	}
	if ck, err := r.Cookie(staffCookie); err == nil {
		return ck.Value
	}
	return ""
}

// refused tells the authenticator's refusal of a credential from its failure to check one.
func refused(err error) bool {
	var e *httpx.Error
	return errors.As(err, &e) && e.Status == http.StatusUnauthorized
}

// wantsPage tells a browser's navigation to the UI, which is better sent to the sign-in page than
// answered 401. (The cookie is not sent to /metrics, so a browser is not sent there from it.)
func wantsPage(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, queueui.Prefix) &&
		strings.Contains(r.Header.Get("Accept"), "text/html")
}
