package httpx

import (
	"bytes"
	"context"
	"io"

	"github.com/labstack/echo/v4"
)

type rawBodyKey struct{}

// KeepBodyFor keeps the raw request body of the named routes ("POST /path", as registered) on the
// request context, for the few handlers that need what decoding into a Go map loses: the order of an
// object's members. Other routes pass through untouched, so large uploads are never copied.
func KeepBodyFor(routes ...string) func(method, path string) echo.MiddlewareFunc {
	keep := make(map[string]bool, len(routes))
	for _, r := range routes {
		keep[r] = true
	}
	return func(method, path string) echo.MiddlewareFunc {
		if !keep[method+" "+path] {
			return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
		}
		return func(next echo.HandlerFunc) echo.HandlerFunc {
			return func(c echo.Context) error {
				req := c.Request()
				raw, err := io.ReadAll(req.Body)
				if err != nil {
					return err
				}
				req.Body = io.NopCloser(bytes.NewReader(raw))
				c.SetRequest(req.WithContext(context.WithValue(req.Context(), rawBodyKey{}, raw)))
				return next(c)
			}
		}
	}
}

// RawBody returns the body KeepBodyFor kept, or nil.
func RawBody(ctx context.Context) []byte {
	b, _ := ctx.Value(rawBodyKey{}).([]byte)
	return b
}
