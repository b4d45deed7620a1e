package httpx

import (
	"net/http"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
)

// QueryGuard refuses query parameters an operation does not declare. Without it a misspelt or
// misplaced filter (statusIn on a route that does not take it) would be ignored silently and the
// caller would act on a selection it did not ask for.
//
// An operation marked `x-any-query: true` in the contract is left alone: the documentation pages are
// read by scripts in the browser, which keep their own state in the address (Swagger UI's
// urls.primaryName, ReDoc's spec), and the server has no say in what those scripts write there.
type QueryGuard struct {
	style   ValidationStyle
	allowed map[string]map[string]bool // "GET /v1/apps/:app_id/jobs" -> names; nil: any query
}

// AnyQueryExtension marks an operation whose query string belongs to the page it serves.
const AnyQueryExtension = "x-any-query"

// NewQueryGuard indexes the declared query parameters of every operation of spec.
func NewQueryGuard(spec *openapi3.T, style ValidationStyle) *QueryGuard {
	g := &QueryGuard{style: style, allowed: map[string]map[string]bool{}}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			if open, _ := op.Extensions[AnyQueryExtension].(bool); open {
				g.allowed[method+" "+echoPath(path)] = nil
				continue
			}
			names := map[string]bool{}
			for _, ps := range []openapi3.Parameters{item.Parameters, op.Parameters} {
				for _, p := range ps {
					if p.Value != nil && p.Value.In == "query" {
						names[p.Value.Name] = true
					}
				}
			}
			g.allowed[method+" "+echoPath(path)] = names
		}
	}
	return g
}

// echoPath turns /a/{id}/b into echo's /a/:id/b.
func echoPath(p string) string {
	return strings.NewReplacer("{", ":", "}", "").Replace(p)
}

// For returns the middleware of one route, as registered with echo.
func (g *QueryGuard) For(method, path string) echo.MiddlewareFunc {
	names, known := g.allowed[method+" "+path]
	if known && names == nil {
		return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			var unknown []string
			for k := range c.QueryParams() {
				if !names[k] {
					unknown = append(unknown, k)
				}
			}
			if len(unknown) == 0 {
				return next(c)
			}
			sort.Strings(unknown)
			items := make([]ValidationItem, len(unknown))
			for i, k := range unknown {
				items[i] = ValidationItem{Loc: []any{"query", k}, Msg: "this operation takes no query parameter " + k, Type: "extra_forbidden"}
			}
			if g.style == Style422 {
				return &Error{Status: http.StatusUnprocessableEntity, Code: "validation_failed", Message: summary(items), Validation: items}
			}
			return &Error{Status: http.StatusBadRequest, Code: "validation_failed", Message: summary(items), Details: items}
		}
	}
}
