package server

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"riverqueue.com/riverui"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/monitor"
	"github.com/loopwork/loopwork/internal/platform/authn"
	"github.com/loopwork/loopwork/internal/queue"
	"github.com/loopwork/loopwork/internal/queueui"
)

// What operators use beside the two interfaces: Prometheus metrics and River's UI. Neither is an
// operation of a contract, so both are mounted on echo directly, past the request validators, the way
// the page of e-mailed links is.

// MetricsPath is where Prometheus scrapes, on the main listener or on LOOPWORK_METRICS_ADDR.
const MetricsPath = "/metrics"

// routeNames label the server's routes that are no contract operation, in the metrics.
var routeNames = map[string]string{
	MetricsPath:           "metrics",
	queueui.Prefix:        "riverUI",
	queueui.Prefix + "/*": "riverUI",
	authn.LinkPagePath:    "linkPage",
	SignInPath:            "staffSignIn",
}

// operationOf names a route for the metrics: the operationId of either contract, else the name of one
// of the server's own routes, else "" (a request that matched nothing).
func operationOf(validators ...*httpx.Validator) func(method, route string) string {
	return func(method, route string) string {
		for _, v := range validators {
			if op := v.OperationID(method, route); op != "" {
				return op
			}
		}
		return routeNames[route]
	}
}

// mountOperations serves River's UI to backoffice callers and, unless metrics have a listener of their
// own, /metrics to them too.
func mountOperations(e *echo.Echo, db *sql.DB, metrics *monitor.Metrics, ui *riverui.Handler, separateMetrics bool,
	resolve func(context.Context, string) (*auth.Principal, error)) {
	staff := backofficeOnly(resolve)
	if !separateMetrics {
		e.GET(MetricsPath, echo.WrapHandler(metrics.Handler()), staff)
	}
	uiHandler := echo.WrapHandler(ui)
	e.Any(queueui.Prefix, uiHandler, staff, announce(db))
	e.Any(queueui.Prefix+"/*", uiHandler, staff, announce(db))
	mountSignIn(e, resolve)
}

// announce wakes the workers after an operator's change through River's UI: a job retried there is
// made available without the notification an insert sends, and would wait for the workers' next
// poll, which comes every half a minute (see queue.Announce).
func announce(db *sql.DB) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			err := next(c)
			if m := c.Request().Method; err == nil && m != http.MethodGet && m != http.MethodHead && c.Response().Status < 300 {
				if aerr := queue.Announce(c.Request().Context(), db); aerr != nil {
					c.Logger().Warn("waking the workers after a change through River's UI: " + aerr.Error())
				}
			}
			return err
		}
	}
}

// backofficeOnly admits platform staff: the request's access token or API key, sent in Authorization
// as the operations of both contracts take it (or kept by the sign-in page's cookie), must resolve to a
// user of the backoffice role. Anyone else is refused as an operation refuses a caller: 401 without
// valid credentials, 403 with those of another role (the permission table's answer; these paths are
// documented, so a 404 would hide nothing). A browser that opens a page without credentials is sent
// to the sign-in page instead.
func backofficeOnly(resolve func(context.Context, string) (*auth.Principal, error)) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			token := staffCredential(c.Request())
			if token == "" && wantsPage(c.Request()) {
				return c.Redirect(http.StatusSeeOther, SignInPath)
			}
			if token == "" {
				return httpx.Unauthorized("missing or invalid credentials")
			}
			ctx := c.Request().Context()
			p, err := resolve(ctx, token)
			if refused(err) && wantsPage(c.Request()) {
				return c.Redirect(http.StatusSeeOther, SignInPath) // a session that ended, say
			}
			if err != nil {
				return err
			}
			if !p.IsBackoffice() {
				return httpx.Forbidden("only the backoffice role may use %s", c.Path())
			}
			c.SetRequest(c.Request().WithContext(auth.WithPrincipal(ctx, p)))
			return next(c)
		}
	}
}

// bearerToken accepts "Bearer <token>" in any case.
func bearerToken(h string) string {
	h = strings.TrimSpace(h)
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// metricsListener serves /metrics, and nothing else, on an address of its own without credentials:
// an address that only the monitoring network reaches.
type metricsListener struct {
	ln net.Listener
	hs *http.Server
}

func listenMetrics(addr string, h http.Handler, logger *slog.Logger) (*metricsListener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listener (LOOPWORK_METRICS_ADDR=%s): %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+MetricsPath, h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: time.Minute}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("metrics listener stopped", "addr", ln.Addr().String(), "error", err.Error())
		}
	}()
	return &metricsListener{ln: ln, hs: hs}, nil
}

func (l *metricsListener) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = l.hs.Shutdown(ctx)
}
