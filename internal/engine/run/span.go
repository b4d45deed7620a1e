package run

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/loopwork/loopwork/internal/engine/dsl"
)

// Each attempt the engine runs gets a span, in the trace of what made it ready: the request that
// started the execution for its first tasks, the attempt whose outcome made it ready for the others (the
// River job's work when it came through River, which carries the trace in the job's metadata). An
// attempt run in process (see local) is started after the transaction that made it ready commits, in a
// goroutine of the engine's own: the span context of that transaction's caller travels with it in
// localRun. An attempt whose process died before it ran is brought back by SweepLost in the sweep's own
// trace: its origin lived only in the process that died.

// tracerName names the engine's instrumentation in its spans.
const tracerName = "github.com/loopwork/loopwork/internal/engine/run"

// startAttempt starts the span of an attempt of task. Its attributes are made only for a span that
// records: with tracing off (or the trace not sampled) an attempt costs no more than the no-op span.
func (e *Engine) startAttempt(ctx context.Context, a taskArgs, task *dsl.Task, c claimed) (context.Context, trace.Span) {
	ctx, span := e.tracer.Start(ctx, "task "+task.Type)
	if span.IsRecording() {
		span.SetAttributes(
			attribute.String("loopwork.task.type", task.Type),
			attribute.String("loopwork.task.name", a.Task),
			attribute.Int("loopwork.task.attempt", a.Idx),
			attribute.String("loopwork.execution.id", a.Execution.String()),
			attribute.String("loopwork.organization.id", c.org.String()),
		)
	}
	return ctx, span
}

// endAttempt ends the span with what the attempt came to. A failure is recorded by its kind, not its
// message: executors' messages quote tenants' data (a jq error shows the value it could not handle), and
// the message is in the attempt's row for those who may read it.
func endAttempt(span trace.Span, o outcome, finishErr error) {
	if !span.IsRecording() {
		span.End()
		return
	}
	kind := "completed"
	var te timeoutError
	switch {
	case errors.As(o.err, &te):
		kind = "timeout"
	case o.err != nil:
		kind = "failed"
	case o.result.Park && o.result.AwaitingInput:
		kind = "awaiting_input"
	case o.result.Park:
		kind = "parked"
	case !o.result.WaitUntil.IsZero():
		kind = "waiting"
	}
	span.SetAttributes(attribute.String("loopwork.task.outcome", kind))
	switch {
	case finishErr != nil:
		span.SetStatus(codes.Error, "recording the outcome failed")
	case o.err != nil:
		span.SetStatus(codes.Error, "the attempt "+kind)
	}
	span.End()
}
