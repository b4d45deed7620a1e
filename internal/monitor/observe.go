package monitor

import (
	"context"
	"errors"
	"time"

	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/mail"
)

// Executors returns set with every executor counted and timed under its task type. The engine calls
// an executor exactly once per attempt it runs, wherever the attempt came from (a River job or the
// process's own start of a ready task), so this is where every attempt passes, without the engine
// knowing of metrics.
func (m *Metrics) Executors(set executors.Set) executors.Set {
	out := make(executors.Set, len(set))
	for typ, ex := range set {
		out[typ] = executors.Mark(countedExecutor{m: m, typ: typ, ex: ex}, executors.KindOf(ex))
	}
	return out
}

type countedExecutor struct {
	m   *Metrics
	typ string
	ex  executors.Executor
}

func (c countedExecutor) Run(ctx context.Context, in executors.Input) (executors.Result, error) {
	start := time.Now()
	res, err := c.ex.Run(ctx, in)
	c.m.taskDuration.WithLabelValues(c.typ).Observe(time.Since(start).Seconds())
	c.m.taskAttempts.WithLabelValues(c.typ, taskOutcome(ctx, res, err)).Inc()
	return res, err
}

// taskOutcome names what an executor's answer does to its attempt: completed or failed now, failed
// because the attempt's time ran out (the engine's timeout), waiting until a time (delay), or parked
// until someone outside the engine finishes it (a human review).
func taskOutcome(ctx context.Context, res executors.Result, err error) string {
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "timeout"
	case err != nil:
		return "failed"
	case res.Park:
		return "parked"
	case !res.WaitUntil.IsZero():
		return "waiting"
	}
	return "completed"
}

// Mail returns s with each delivery attempt counted: sent (handed to the SMTP server), logged (no
// SMTP configured: written to the log and kept in the outbox) or failed (River tries again, up to the
// mail job's attempts).
func (m *Metrics) Mail(s mail.Sender) mail.Sender { return countedSender{m: m, Sender: s} }

type countedSender struct {
	m *Metrics
	mail.Sender
}

func (c countedSender) Send(ctx context.Context, msg mail.Message) error {
	err := c.Sender.Send(ctx, msg)
	switch {
	case err != nil:
		c.m.mail.WithLabelValues("failed").Inc()
	case c.Delivers():
		c.m.mail.WithLabelValues("sent").Inc()
	default:
		c.m.mail.WithLabelValues("logged").Inc()
	}
	return err
}

// Export counts an event of an export's life: started (recorded and queued), succeeded (its file
// written) or failed (given up after its attempts).
func (m *Metrics) Export(event string) { m.exports.WithLabelValues(event).Inc() }
