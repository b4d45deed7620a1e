package monitor

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// RiverMiddleware counts the jobs this process works and times them. Middleware rather than River's
// event subscription: it runs in the worker's own call, so no outcome is lost when a subscriber's
// channel is full, and it costs no goroutine.
func (m *Metrics) RiverMiddleware() rivertype.Middleware { return &riverMiddleware{m: m} }

type riverMiddleware struct {
	river.MiddlewareDefaults
	m *Metrics
}

func (r *riverMiddleware) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) (err error) {
	start := time.Now()
	if job.AttemptedAt != nil {
		// Both times come from the database's clock, so replicas with skewed clocks agree.
		r.m.jobWait.WithLabelValues(job.Kind).Observe(max(job.AttemptedAt.Sub(job.ScheduledAt), 0).Seconds())
	}
	defer func() {
		if p := recover(); p != nil {
			r.observe(job, errors.New("panic"), start)
			panic(p)
		}
		r.observe(job, err, start)
	}()
	return doInner(ctx)
}

func (r *riverMiddleware) observe(job *rivertype.JobRow, err error, start time.Time) {
	r.m.jobDuration.WithLabelValues(job.Kind).Observe(time.Since(start).Seconds())
	r.m.jobsWorked.WithLabelValues(job.Kind, job.Queue, jobOutcome(job, err)).Inc()
}

// jobOutcome is what River makes of an attempt that returned err: the state the job moves to.
func jobOutcome(job *rivertype.JobRow, err error) string {
	var cancel *rivertype.JobCancelError
	var snooze *rivertype.JobSnoozeError
	switch {
	case err == nil:
		return "completed"
	case errors.As(err, &cancel):
		return "cancelled"
	case errors.As(err, &snooze):
		return "snoozed"
	case job.Attempt >= job.MaxAttempts:
		return "discarded"
	}
	return "retryable"
}
