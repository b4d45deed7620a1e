package monitor

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
)

// Unmatched is the operation label of requests that reached no operation of either contract and no
// other route of the server (404s, 405s, CORS preflights): one value, whatever the path, so that
// probing random URLs cannot add series.
const Unmatched = "unmatched"

// HTTP counts and times every request. Install it with echo's Pre, outside everything else: it then
// sees the route echo chose and the status the client received, after the access log has turned any
// error into its response. operation names the route (method and echo's path, such as
// "/v1/apps/:app_id") by the contract's operationId, or "" when it has none.
func (m *Metrics) HTTP(operation func(method, route string) string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			m.inFlight.Inc()
			defer m.inFlight.Dec()
			start := time.Now()
			err := next(c)
			if err != nil {
				// Nothing inside left it unanswered so far; if something does, answer it here, so the
				// status counted is the one sent.
				c.Error(err)
				err = nil
			}
			method := methodLabel(c.Request().Method)
			op := operation(c.Request().Method, c.Path())
			if op == "" {
				op = Unmatched
			}
			m.requests.WithLabelValues(op, method, strconv.Itoa(c.Response().Status)).Inc()
			m.latency.WithLabelValues(op, method).Observe(time.Since(start).Seconds())
			return err
		}
	}
}

// methodLabel keeps the method label to the standard methods: any other word a client sends is
// counted as OTHER.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions:
		return m
	}
	return "OTHER"
}
