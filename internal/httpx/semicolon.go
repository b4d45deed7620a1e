package httpx

import (
	"strings"

	"github.com/labstack/echo/v4"
)

// LiteralSemicolons reads a semicolon in a query string as the character it is, not as a separator:
// Go drops a whole key=value pair that holds an unescaped ";" (golang.org/issue/25192), so
// `fieldDelimiter=;`, a value Document 1 lists, would silently turn into the default. No operation of
// either contract separates parameters with semicolons, so escaping them loses nothing.
func LiteralSemicolons() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if u := c.Request().URL; strings.Contains(u.RawQuery, ";") {
				u.RawQuery = strings.ReplaceAll(u.RawQuery, ";", "%3B")
			}
			return next(c)
		}
	}
}
