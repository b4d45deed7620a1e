// Package server assembles the HTTP stack: middleware, both interfaces with their request validators,
// and the services that implement them.
package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/jmoiron/sqlx"
	"github.com/labstack/echo/v4"

	"github.com/loopwork/loopwork/db/migrations"
	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/docs"
	"github.com/loopwork/loopwork/internal/platform/health"
)

// Deps are what the server needs from the process.
type Deps struct {
	Config config.Config
	DB     *sqlx.DB
	Logger *slog.Logger
	// Authenticator checks credentials for operations that require them; nil refuses every credential.
	Authenticator httpx.Authenticator
}

// Server is the whole HTTP application.
type Server struct {
	echo   *echo.Echo
	health *health.Service
}

// platform implements the /api interface: each area service contributes its operations, and whatever
// no service provides yet falls through to the generated 501 answers one embedding level further down.
type platform struct {
	*healthService
	*docsService
	platformPending
}

// Aliases give the embedded services distinct field names.
type (
	healthService = health.Service
	docsService   = docs.Service
)

type platformPending struct{ platformapi.Unimplemented }

// v1 implements the /v1 interface the same way.
type v1 struct {
	v1Pending
}

type v1Pending struct{ v1api.Unimplemented }

var (
	_ platformapi.StrictServerInterface = platform{}
	_ v1api.StrictServerInterface       = v1{}
)

// New builds the server. It fails only on a broken embedded contract or configuration.
func New(d Deps) (*Server, error) {
	apiSpec, err := httpx.LoadSpec(platformapi.OpenAPIJSON)
	if err != nil {
		return nil, fmt.Errorf("load /api contract: %w", err)
	}
	v1Spec, err := httpx.LoadSpec(v1api.OpenAPIJSON)
	if err != nil {
		return nil, fmt.Errorf("load /v1 contract: %w", err)
	}
	migrationState := func(ctx context.Context) (bool, error) {
		p, err := migrations.NewProvider(d.DB.DB, nil)
		if err != nil {
			return false, err
		}
		return p.HasPending(ctx)
	}
	hs := health.New(d.DB, migrationState, d.Config.ReadinessTimeout, apiSpec.Info.Version)
	ds, err := docs.New(platformapi.OpenAPIJSON, v1api.SwaggerJSON, v1api.OpenAPIJSON, []docs.Spec{
		{Name: "/api — workflow platform", URL: "/api/openapi.json"},
		{Name: "/v1 — apps and jobs", URL: "/v1/openapi.json"},
	})
	if err != nil {
		return nil, err
	}

	e := httpx.NewEcho(httpx.EchoOptions{
		Logger: d.Logger, BodyLimit: d.Config.BodyLimit, CORSOrigins: d.Config.CORSOrigins, PublicURL: d.Config.PublicURL,
	})
	auth := d.Authenticator
	if auth == nil {
		auth = refuseAll
	}
	apiRoutes := routeWith{e, httpx.Validator(apiSpec, httpx.Style422, auth)}
	platformapi.RegisterHandlers(apiRoutes, platformapi.NewStrictHandler(platform{healthService: hs, docsService: ds}, nil))
	v1Routes := routeWith{e, httpx.Validator(v1Spec, httpx.Style400, auth)}
	v1api.RegisterHandlers(v1Routes, v1api.NewStrictHandler(v1{}, nil))

	return &Server{echo: e, health: hs}, nil
}

// ServeHTTP makes the server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.echo.ServeHTTP(w, r) }

// SetDraining makes readiness fail while a graceful shutdown lets requests in flight finish.
func (s *Server) SetDraining() { s.health.SetDraining() }

// refuseAll is the authenticator until identity is in place: no credential is accepted yet, so every
// operation that needs one answers 401 and only the public routes work.
func refuseAll(context.Context, *openapi3filter.AuthenticationInput) error {
	return httpx.Unauthorized("missing or invalid credentials")
}
