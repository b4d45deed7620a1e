package httpx

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// AccessLog writes one structured line per request, with the secrets of its path and query (signed
// download tokens, link tokens, signatures) replaced, since logs are read by more people than may use
// them. It runs outside the error handler's reach, so it
// calls it itself to log the status the client actually receives.
func AccessLog(logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			req, res := c.Request(), c.Response()
			level := slog.LevelInfo
			attrs := []slog.Attr{
				slog.String("request_id", RequestID(c)),
				slog.String("method", req.Method),
				slog.String("path", LoggedPath(c)),
				slog.String("route", c.Path()),
				slog.Int("status", res.Status),
				slog.Int64("bytes_out", res.Size),
				slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
				slog.String("remote_ip", c.RealIP()),
			}
			if q := LoggedQuery(req.URL); q != "" {
				attrs = append(attrs, slog.String("query", q))
			}
			var ni notImplemented
			switch {
			case res.Status == http.StatusNotImplemented && errors.As(err, &ni):
				// Expected until the operation lands: worth a warning, not an error.
				level = slog.LevelWarn
				attrs = append(attrs, slog.String("operation", operationID(ni.NotImplementedOperation())))
			case res.Status >= 500:
				level = slog.LevelError
			}
			logger.LogAttrs(req.Context(), level, "request", attrs...)
			return nil
		}
	}
}

// operationID turns the Go method name of an operation back into the contract's operationId
// (oapi-codegen upper-cases its first letter).
func operationID(method string) string {
	if method == "" {
		return method
	}
	return strings.ToLower(method[:1]) + method[1:]
}
