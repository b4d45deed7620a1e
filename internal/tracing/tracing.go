// Package tracing records OpenTelemetry traces of the service and exports them over OTLP/HTTP when an
// endpoint is configured: a server span per request named by the contract's operationId, a span per SQL
// statement made on behalf of a traced operation, River's insert and work spans (the work continuing the
// trace of the insert), and the engine's span per task attempt. Without an endpoint nothing is recorded:
// the tracer is OpenTelemetry's no-op one, and neither the pool, the HTTP stack nor River is wrapped.
package tracing

import (
	"context"
	"errors"
	"log/slog"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// scope names the instrumentation of this package in every span it starts.
const scope = "github.com/loopwork/loopwork/internal/tracing"

// Options configure tracing; an empty Endpoint turns it off.
type Options struct {
	// Endpoint is the full URL spans are POSTed to as OTLP/HTTP protobuf, for example
	// http://collector:4318/v1/traces.
	Endpoint string
	// ServiceName and ServiceVersion describe this process in every span it exports.
	ServiceName, ServiceVersion string
	// SampleRatio is the share of traces started here that are recorded (0 to 1); a trace a caller
	// started keeps the caller's decision.
	SampleRatio float64
}

// Tracing is the process's tracer provider and what it instruments. A nil *Tracing is tracing off.
type Tracing struct {
	sdk *sdktrace.TracerProvider
}

// New starts the exporter when opts.Endpoint is set; otherwise it returns tracing that is off.
// The exporter connects lazily, so an unreachable collector does not stop the server from starting:
// its spans are dropped and the failure is reported through ReportErrorsTo.
func New(ctx context.Context, opts Options) (*Tracing, error) {
	if opts.Endpoint == "" {
		return &Tracing{}, nil
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(opts.Endpoint))
	if err != nil {
		return nil, err
	}
	res := resource.NewWithAttributes(semconv.SchemaURL,
		semconv.ServiceName(opts.ServiceName), semconv.ServiceVersion(opts.ServiceVersion))
	sdk := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(opts.SampleRatio))),
	)
	return &Tracing{sdk: sdk}, nil
}

// Enabled reports whether spans are recorded and exported.
func (t *Tracing) Enabled() bool { return t != nil && t.sdk != nil }

// Provider is the tracer provider the instrumented parts start spans with (the no-op one when off).
func (t *Tracing) Provider() trace.TracerProvider {
	if !t.Enabled() {
		return noop.NewTracerProvider()
	}
	return t.sdk
}

// Flush exports every span that has ended so far.
func (t *Tracing) Flush(ctx context.Context) error {
	if !t.Enabled() {
		return nil
	}
	return t.sdk.ForceFlush(ctx)
}

// Shutdown exports the spans still buffered and stops the exporter; spans ended later are dropped.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if !t.Enabled() {
		return nil
	}
	return t.sdk.Shutdown(ctx)
}

// ReportErrorsTo sends OpenTelemetry's internal errors (a collector that cannot be reached, spans
// dropped because the buffer is full) to logger instead of the standard library's log. It sets
// OpenTelemetry's process-wide handler, so only the command calls it.
func ReportErrorsTo(logger *slog.Logger) {
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		if !errors.Is(err, context.Canceled) {
			logger.Warn("trace export", "error", err.Error())
		}
	}))
}
