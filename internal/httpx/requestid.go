package httpx

import (
	"github.com/labstack/echo/v4"
	"github.com/oklog/ulid/v2"
)

// HeaderRequestID carries the request's ULID both ways.
const HeaderRequestID = "X-Request-ID"

// RequestIDMiddleware gives every request a ULID: the caller's, when it sends a valid one (so a trace
// can span services), otherwise a new one. It is echoed in the response header and in error bodies.
func RequestIDMiddleware() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			id := c.Request().Header.Get(HeaderRequestID)
			if _, err := ulid.ParseStrict(id); err != nil {
				id = ulid.Make().String()
			}
			c.Set(HeaderRequestID, id)
			c.Response().Header().Set(HeaderRequestID, id)
			return next(c)
		}
	}
}

// RequestID returns the request's ULID ("" outside the middleware).
func RequestID(c echo.Context) string {
	id, _ := c.Get(HeaderRequestID).(string)
	return id
}
