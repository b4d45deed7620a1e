package tracing

import (
	"context"
	"encoding/json"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/riverqueue/rivercontrib/otelriver"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// River is the middleware the queue's client gets (none when tracing is off): otelriver's spans for
// inserts and work, with the trace context of an insert carried in the job's metadata, and before it
// continuation, which makes the work span a child of the insert span. otelriver itself only links the
// two, starting every job in a trace of its own; here the point of a trace is to follow a request into
// the work it causes, so the job's work belongs in the request's trace. Metrics are left to the
// service's own (otelriver's are sent to a no-op meter).
func (t *Tracing) River() []rivertype.Middleware {
	if !t.Enabled() {
		return nil
	}
	return []rivertype.Middleware{
		&continuation{},
		otelriver.NewMiddleware(&otelriver.MiddlewareConfig{
			TracerProvider:              t.sdk,
			MeterProvider:               noop.NewMeterProvider(),
			EnableTracePropagation:      true,
			EnableWorkSpanJobKindSuffix: true,
		}),
	}
}

// continuation puts the span context an inserted job carries in its metadata into the context the
// job is worked in, as the remote parent of what the work starts. Jobs inserted outside a trace
// (periodic ones, those of the sweeps) carry none and start traces of their own.
type continuation struct {
	river.MiddlewareDefaults
}

func (*continuation) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	if sc := carried(job.Metadata); sc.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	return doInner(ctx)
}

// carried reads the W3C trace context otelriver wrote into a job's metadata.
func carried(metadata []byte) trace.SpanContext {
	var meta map[string]any
	if len(metadata) == 0 || json.Unmarshal(metadata, &meta) != nil {
		return trace.SpanContext{}
	}
	carrier := propagation.MapCarrier{}
	for _, k := range propagator.Fields() {
		if s, ok := meta[k].(string); ok {
			carrier[k] = s
		}
	}
	return trace.SpanContextFromContext(propagator.Extract(context.Background(), carrier))
}

var _ rivertype.WorkerMiddleware = (*continuation)(nil)
