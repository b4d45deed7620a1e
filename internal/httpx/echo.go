package httpx

import (
	"log/slog"
	"net"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// EchoOptions are the cross-cutting settings of the HTTP stack.
type EchoOptions struct {
	Logger    *slog.Logger
	BodyLimit string // e.g. "10M"
	// Uploads are the routes whose bodies may be larger (or must be smaller) than BodyLimit.
	Uploads     []RouteLimit
	CORSOrigins string // comma-separated; "*" for any
	PublicURL   string // externally visible base URL, from configuration only
	// TrustedProxies may set X-Forwarded-For; with none, the peer address is the client address.
	TrustedProxies []*net.IPNet
}

// NewEcho returns echo with the middleware every route gets, in this order: semicolons of the query
// read as characters (before anything parses it), request id (so everything after can log it), access
// log, panic recovery (a panic becomes a 500 ErrorResponse), CORS, body limit, base URL. Errors from
// any of them or any handler reach ErrorHandler, once.
func NewEcho(o EchoOptions) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = ErrorHandler(o.Logger)
	e.IPExtractor = ipExtractor(o.TrustedProxies)
	e.Pre(LiteralSemicolons())
	e.Use(
		RequestIDMiddleware(),
		AccessLog(o.Logger),
		middleware.RecoverWithConfig(middleware.RecoverConfig{
			DisableStackAll: true,
			LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
				o.Logger.ErrorContext(c.Request().Context(), "panic", "request_id", RequestID(c),
					"error", err.Error(), "stack", string(stack))
				return err
			},
		}),
		middleware.CORSWithConfig(middleware.CORSConfig{
			AllowOrigins:  splitOrigins(o.CORSOrigins),
			AllowHeaders:  []string{"Authorization", "Content-Type", "X-Fields", HeaderRequestID, "apikey", "Prefer"},
			ExposeHeaders: []string{HeaderRequestID, "Retry-After"},
		}),
		BodyLimit(o.BodyLimit, o.Uploads...),
		BaseURLMiddleware(o.PublicURL),
		ClientIPMiddleware(),
	)
	return e
}

func splitOrigins(s string) []string {
	var out []string
	for _, o := range strings.Split(s, ",") {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, o)
		}
	}
	if len(out) == 0 {
		return []string{"*"}
	}
	return out
}
