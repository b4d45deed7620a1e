package httpx

import (
	"context"

	"github.com/labstack/echo/v4"
)

type baseURLKey struct{}

// BaseURLMiddleware records the externally visible base URL on the request context, so that handlers
// behind the strict interfaces (which see only a context) can build absolute links. It is the
// configured public URL and nothing the request says: Host and X-Forwarded-* are chosen by the sender,
// and links built from them (an e-mailed invitation's, say) would lead to the sender's host.
func BaseURLMiddleware(publicURL string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			ctx := context.WithValue(c.Request().Context(), baseURLKey{}, publicURL)
			c.SetRequest(c.Request().WithContext(ctx))
			return next(c)
		}
	}
}

// BaseURL returns the base URL recorded by BaseURLMiddleware, without a trailing slash.
func BaseURL(ctx context.Context) string {
	s, _ := ctx.Value(baseURLKey{}).(string)
	for len(s) > 0 && s[len(s)-1] == '/' {
		s = s[:len(s)-1]
	}
	return s
}
