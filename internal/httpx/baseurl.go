package httpx

import (
	"context"

	"github.com/labstack/echo/v4"
)

type baseURLKey struct{}

// BaseURLMiddleware records the externally visible base URL on the request context, so that handlers
// behind the strict interfaces (which see only a context) can build absolute links. A configured
// public URL wins over what the request says, because proxies may rewrite host and scheme.
func BaseURLMiddleware(publicURL string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			base := publicURL
			if base == "" {
				base = c.Scheme() + "://" + c.Request().Host
			}
			ctx := context.WithValue(c.Request().Context(), baseURLKey{}, base)
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
