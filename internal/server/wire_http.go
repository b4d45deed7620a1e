package server

import (
	"fmt"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/authn"
	"github.com/loopwork/loopwork/internal/platform/documents"
	"github.com/loopwork/loopwork/internal/queueui"
)

// wireHTTP mounts both interfaces on one echo, each behind its own validator and guards, then the
// routes outside the contracts: the sign-in link page, metrics and the operators' pages (with the
// River UI, which is why it needs the queue client).
func wireHTTP(c *core, api platform, jobsAPI v1) (*echo.Echo, error) {
	d, cfg := c.d, c.cfg
	proxies, err := cfg.TrustedProxyNets()
	if err != nil {
		return nil, err
	}
	e := httpx.NewEcho(httpx.EchoOptions{
		Logger: d.Logger, BodyLimit: cfg.BodyLimit, Uploads: []httpx.RouteLimit{
			// A recording's limit is its own; the form around it adds a little.
			{Route: "POST /api/agent/transcription", Limit: cfg.TranscriptionMaxBytesValue() + 1<<20,
				Setting: "LOOPWORK_TRANSCRIPTION_MAX_BYTES"},
			// A CSV file of a document may have 100 MB, and the form around it a little more.
			{Route: "POST /api/database/:db_id/upload", Limit: documents.MaxBytes + 1<<20, Setting: "the limit of CSV files"},
			{Route: "POST /api/database/:db_id/upload/preview", Limit: documents.MaxBytes + 1<<20, Setting: "the limit of CSV files"},
		}, CORSOrigins: cfg.CORSOrigins, PublicURL: cfg.PublicURL,
		TrustedProxies: proxies,
	})
	apiValidator := httpx.NewValidator(c.apiSpec, httpx.Style422, c.authenticate)
	apiRoutes := routeWith{e, []func(string, string) echo.MiddlewareFunc{
		forgetOnWrite(c.bus, apiValidator.OperationID),
		// A form keeps the order of the parameters it is built for, which a decoded map forgets.
		httpx.KeepBodyFor("POST /api/integrations/ui-schema"),
		apiValidator.For,
		httpx.NewQueryGuard(c.apiSpec, httpx.Style422).For,
		func(string, string) echo.MiddlewareFunc { return httpx.TextGuard(httpx.Style422) },
	}}
	platformapi.RegisterHandlers(apiRoutes, platformapi.NewStrictHandler(api, nil))
	// /v1 answers X-Fields masks; the mask is read after authentication and validation, so a caller
	// who may not make the request learns nothing from a malformed one.
	xfields := httpx.XFields()
	v1Validator := httpx.NewValidator(c.v1Spec, httpx.Style400, c.authenticate)
	v1Routes := routeWith{e, []func(string, string) echo.MiddlewareFunc{
		forgetOnWrite(c.bus, v1Validator.OperationID),
		v1Validator.For,
		httpx.NewQueryGuard(c.v1Spec, httpx.Style400).For,
		func(string, string) echo.MiddlewareFunc { return httpx.TextGuard(httpx.Style400) },
		func(string, string) echo.MiddlewareFunc { return xfields },
	}}
	v1api.RegisterHandlers(v1Routes, v1api.NewStrictHandler(jobsAPI, nil))
	if d.Tracing.Enabled() {
		// Before routing, so the server span covers every middleware and every handler's context has it.
		e.Pre(d.Tracing.HTTP(func(method, route string) string {
			if id := apiValidator.OperationID(method, route); id != "" {
				return id
			}
			return v1Validator.OperationID(method, route)
		}))
	}
	// The page that e-mailed links open is a browser form, not an operation of either contract.
	e.GET(authn.LinkPagePath, api.authnService.LinkPage)
	e.POST(authn.LinkPagePath, api.authnService.LinkPage, middleware.BodyLimit("16K"))
	// Every request is counted, outside everything else, under the operation it reached.
	e.Pre(c.metrics.HTTP(operationOf(apiValidator, v1Validator)))
	ui, err := queueui.New(c.queue, d.Logger)
	if err != nil {
		return nil, fmt.Errorf("river UI: %w", err)
	}
	mountOperations(e, d.DB.DB, c.metrics, ui, cfg.MetricsAddr != "", c.authenticator.Resolve)
	return e, nil
}
