package tracing

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/loopwork/loopwork/internal/httpx"
)

// propagator reads and writes W3C trace context (traceparent, tracestate), the format callers, River's
// job metadata and every OpenTelemetry collector share.
var propagator = propagation.TraceContext{}

// HTTP is the middleware of the server span of each request, meant for echo's Pre stage so that the
// span covers the whole request and every handler's context carries it. The span continues the trace
// of a caller's traceparent header, and is named once echo has routed the request: by name(method,
// route), the contract's operationId, else "METHOD route", else the method alone (a request that matched
// no route, so that scanners' paths do not each become a span name). It records the method, the route
// and the status, and neither the path, the query, the headers nor the body: those carry tokens, signed
// links' signatures and tenants' data.
func (t *Tracing) HTTP(name func(method, route string) string) echo.MiddlewareFunc {
	if !t.Enabled() {
		return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	}
	tracer := t.sdk.Tracer(scope)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			method := knownMethod(req.Method)
			ctx := propagator.Extract(req.Context(), propagation.HeaderCarrier(req.Header))
			ctx, span := tracer.Start(ctx, method, trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(semconv.HTTPRequestMethodKey.String(method)))
			defer span.End()
			c.SetRequest(req.WithContext(ctx))

			err := next(c)

			route := c.Path()
			spanName := method
			if op := name(req.Method, route); op != "" {
				spanName = op
			} else if route != "" && route != "/*" {
				spanName = method + " " + route
			}
			span.SetName(spanName)
			status := c.Response().Status
			if err != nil && !c.Response().Committed {
				// The error handler writes the response after this middleware returns.
				status = http.StatusInternalServerError
				if he, ok := err.(*echo.HTTPError); ok {
					status = he.Code
				}
			}
			attrs := []attribute.KeyValue{semconv.HTTPResponseStatusCode(status),
				attribute.String("loopwork.request_id", httpx.RequestID(c))}
			if route != "" {
				attrs = append(attrs, semconv.HTTPRoute(route))
			}
			span.SetAttributes(attrs...)
			if status >= 500 {
				span.SetStatus(codes.Error, http.StatusText(status))
			}
			return err
		}
	}
}

// knownMethod is the request's method, or _OTHER for one HTTP does not define, so that a made-up
// method does not become a span name.
func knownMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "_OTHER"
}
