package httpx

import (
	"context"
	"net"

	"github.com/labstack/echo/v4"
)

type (
	clientIPKey  struct{}
	userAgentKey struct{}
)

// ClientIPMiddleware records the caller's address and user agent for handlers behind the strict interfaces (rate
// limits, audit). Which address that is depends on the echo IPExtractor NewEcho installs.
func ClientIPMiddleware() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			ctx := context.WithValue(c.Request().Context(), clientIPKey{}, c.RealIP())
			ctx = context.WithValue(ctx, userAgentKey{}, c.Request().UserAgent())
			c.SetRequest(c.Request().WithContext(ctx))
			return next(c)
		}
	}
}

// ClientIP returns the caller's address ("" outside a request).
func ClientIP(ctx context.Context) string {
	s, _ := ctx.Value(clientIPKey{}).(string)
	return s
}

// UserAgent returns the caller's User-Agent header ("" outside a request), recorded with sessions.
func UserAgent(ctx context.Context) string {
	s, _ := ctx.Value(userAgentKey{}).(string)
	if len(s) > 512 {
		s = s[:512]
	}
	return s
}

// ipExtractor trusts X-Forwarded-For only when the direct peer is one of the trusted proxies;
// otherwise a client could pick its own address and walk around per-address rate limits.
func ipExtractor(trusted []*net.IPNet) echo.IPExtractor {
	if len(trusted) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, n := range trusted {
		opts = append(opts, echo.TrustIPRange(n))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}
