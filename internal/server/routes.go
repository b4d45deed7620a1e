package server

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// routeWith registers routes on echo with an interface's request validator and query guard. It
// satisfies the generated EchoRouter, so each interface validates only its own routes, and a route
// that exists in neither contract is never validated against the wrong one.
type routeWith struct {
	e *echo.Echo
	// per are the middleware factories every route of the interface gets, outermost first; each is
	// told the route it serves.
	per []func(method, path string) echo.MiddlewareFunc
}

func (r routeWith) with(method, path string, m []echo.MiddlewareFunc) []echo.MiddlewareFunc {
	out := make([]echo.MiddlewareFunc, 0, len(r.per)+len(m))
	for _, f := range r.per {
		out = append(out, f(method, path))
	}
	return append(out, m...)
}

func (r routeWith) CONNECT(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.CONNECT(p, h, r.with(http.MethodConnect, p, m)...)
}

func (r routeWith) DELETE(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.DELETE(p, h, r.with(http.MethodDelete, p, m)...)
}

func (r routeWith) GET(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.GET(p, h, r.with(http.MethodGet, p, m)...)
}

func (r routeWith) HEAD(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.HEAD(p, h, r.with(http.MethodHead, p, m)...)
}

func (r routeWith) OPTIONS(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.OPTIONS(p, h, r.with(http.MethodOptions, p, m)...)
}

func (r routeWith) PATCH(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.PATCH(p, h, r.with(http.MethodPatch, p, m)...)
}

func (r routeWith) POST(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.POST(p, h, r.with(http.MethodPost, p, m)...)
}

func (r routeWith) PUT(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.PUT(p, h, r.with(http.MethodPut, p, m)...)
}

func (r routeWith) TRACE(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.e.TRACE(p, h, r.with(http.MethodTrace, p, m)...)
}
