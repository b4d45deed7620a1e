package httpx

import (
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"
)

// AccessLog writes one structured line per request. It runs outside the error handler's reach, so it
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
			if res.Status >= 500 {
				level = slog.LevelError
			}
			logger.LogAttrs(req.Context(), level, "request",
				slog.String("request_id", RequestID(c)),
				slog.String("method", req.Method),
				slog.String("path", req.URL.Path),
				slog.String("route", c.Path()),
				slog.Int("status", res.Status),
				slog.Int64("bytes_out", res.Size),
				slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
				slog.String("remote_ip", c.RealIP()),
			)
			return nil
		}
	}
}
