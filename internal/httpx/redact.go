package httpx

import (
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
)

// Redacted stands in for a secret in a log line.
const Redacted = "REDACTED"

// secretNames are path parameters and query parameters that carry a secret: a signed download token,
// an e-mailed link's token, a signature or key. Whoever reads the logs must not be able to use them.
var secretNames = map[string]bool{
	"token": true, "access_token": true, "refresh_token": true, "id_token": true, "code": true,
	"signature": true, "sig": true, "key": true, "apikey": true, "api_key": true, "secret": true,
	"password": true, "x-amz-signature": true, "x-amz-credential": true, "x-amz-security-token": true,
}

func isSecret(name string) bool { return secretNames[strings.ToLower(name)] }

// LoggedPath is the request's path as logs show it: the segments that the matched route names with a
// secret-bearing parameter (such as the token of /api/storage/download/{token}) are replaced.
func LoggedPath(c echo.Context) string {
	path := c.Request().URL.Path
	route := c.Path()
	if !strings.Contains(route, ":") {
		return path
	}
	rs, ps := strings.Split(route, "/"), strings.Split(path, "/")
	if len(rs) != len(ps) {
		return path
	}
	changed := false
	for i, seg := range rs {
		if strings.HasPrefix(seg, ":") && isSecret(seg[1:]) {
			ps[i], changed = Redacted, true
		}
	}
	if !changed {
		return path
	}
	return strings.Join(ps, "/")
}

// LoggedQuery is the request's query as logs show it, with the values of secret-bearing parameters
// replaced; empty when there is none.
func LoggedQuery(u *url.URL) string {
	if u.RawQuery == "" {
		return ""
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		// A query that does not parse is not logged at all rather than logged with a secret in it.
		return Redacted
	}
	for k, vs := range q {
		if isSecret(k) {
			for i := range vs {
				vs[i] = Redacted
			}
		}
	}
	return q.Encode()
}
