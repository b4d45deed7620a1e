package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/measurerconfig"
)

// submission is a validated JobInput with the app's defaults applied.
type submission struct {
	input, metadata string
	tags            []string
	batchID         *string
	priority        int
	deadline        *time.Time
	ttlSeconds      *int
	// onboarding is the measurement round of a measurement job; nil for other jobs.
	onboarding *int64
	// execution is the id chosen for the flow execution the job starts with, if it starts one.
	execution *uuid.UUID
	// version and pre are the flow's version it runs and its first tasks run ahead (see prepare).
	version int
	pre     *run.Prepared
}

func newSubmission(g *access.Grant, in *v1api.JobInput, now time.Time) (submission, error) {
	if in == nil || len(in.Input) == 0 || isNull(in.Input) {
		return submission{}, httpx.InvalidV1([]any{"body", "input"}, "missing", "input is required and must be an object")
	}
	if in.TtlSeconds != nil && in.Deadline != nil {
		return submission{}, httpx.InvalidV1([]any{"body", "deadline"}, "value_error", "ttl_seconds and deadline are exclusive; send one of them")
	}
	if in.Deadline != nil && !in.Deadline.After(now) {
		return submission{}, httpx.InvalidV1([]any{"body", "deadline"}, "value_error", "deadline must be in the future")
	}
	// The documents are stored as sent, byte for byte into jsonb: decoding them into Go values would
	// round large integers through float64. The validator has checked they are JSON objects.
	metadata := "{}"
	if in.Metadata != nil && !isNull(*in.Metadata) {
		metadata = string(*in.Metadata)
	}
	s := submission{input: string(in.Input), metadata: metadata, tags: []string{}, batchID: in.BatchId,
		priority: g.App.ParsedSettings().DefaultPriority, deadline: in.Deadline, ttlSeconds: in.TtlSeconds}
	if in.Priority != nil {
		s.priority = *in.Priority
	}
	if in.Tags != nil {
		s.tags = dedupe(*in.Tags)
	}
	if s.ttlSeconds == nil && s.deadline == nil {
		s.ttlSeconds = g.App.JobTTLSeconds
	}
	return s, nil
}

// initialState is where a new job starts. On an app without a flow it waits SCHEDULED, for a person (or
// an external worker when labeling is off). On an app bound to a flow it starts an execution at once
// (SCHEDULED, then moving with the execution), unless the app is PAUSED or limits its running jobs: then
// it waits PENDING to be admitted (see lifecycle.Admit) when the app is ACTIVE and has room.
func initialState(g *access.Grant) (status, processing string) {
	switch {
	case g.App.APIID == nil && g.App.ParsedSettings().LabelingEnabled:
		return "SCHEDULED", "AWAITING_HUMAN"
	case g.App.APIID != nil && (g.App.Status == "PAUSED" || g.App.ParsedSettings().MaxRunningJobs != nil):
		return "PENDING", "QUEUED"
	}
	return "SCHEDULED", "QUEUED"
}

// SubmitJob accepts a job: the credit it costs is checked, the job inserted and the usage recorded
// atomically, so a job is never stored unpaid and a refused one costs nothing.
func (s *Service) SubmitJob(ctx context.Context, req v1api.SubmitJobRequestObject) (v1api.SubmitJobResponseObject, error) {
	g, p, err := s.d.Grants.Require(ctx, req.AppId, access.Manager)
	if err != nil {
		return nil, err
	}
	sub, err := newSubmission(g, req.Body, time.Now())
	if err != nil {
		return nil, err
	}
	sub.onboarding = req.Params.Onboarding
	if g.App.Status == "ARCHIVED" {
		return nil, httpx.Conflict("the app is archived and accepts no jobs")
	}
	status, processing := initialState(g)
	out := v1api.JobSubmitted{AppId: g.App.ID, Status: v1api.JobStatus(status), BatchId: sub.batchID}
	// A measurement job takes the careful path: its round is checked and held in the same transaction.
	ok := false
	// A job that starts an execution takes the careful path too: the job, its credit and its execution
	// commit together.
	starts := g.App.APIID != nil && status == "SCHEDULED"
	admits := g.App.APIID != nil && status == "PENDING" && g.App.Status == "ACTIVE"
	if sub.onboarding == nil && !starts && !admits {
		if ok, err = s.submitPaid(ctx, g, p, sub, status, processing, &out); err != nil {
			return nil, err
		}
	}
	number := 0
	if starts {
		id := uuid.Must(uuid.NewV7()) // time-ordered, as the column's default (migration 00103)
		sub.execution = &id
		// The run number is taken before the transaction, so that concurrent submissions to one flow do
		// not queue on the flow's counter row while they commit (see run.TakeRunNumber).
		if number, err = run.TakeRunNumber(ctx, s.d.DB, *g.App.APIID); err != nil {
			return nil, err
		}
		// The version, and the first tasks that only compute, are settled before the transaction too:
		// those are the tenant's programs, which run while no row is locked (see run.Prepared).
		if sub.version, sub.pre, err = s.prepare(ctx, g, sub, sub.onboarding == nil && together(sub)); err != nil {
			return nil, err
		}
	}
	var started *run.Started
	if starts && sub.onboarding == nil {
		// Written with the other such submissions that arrive meanwhile (see submitStarted).
		err = s.submitStarted(ctx, g, p, sub, number, &out)
	} else if !ok {
		err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
			if sub.onboarding != nil {
				if err := measurerconfig.CheckOnboarding(ctx, tx, g.App.ID, *sub.onboarding); err != nil {
					return err
				}
			}
			if starts {
				started, err = s.startJob(ctx, tx, g, p, sub, number, &out)
				return err
			}
			if err := s.insertTx(ctx, tx, g, p, sub, status, processing, &out); err != nil {
				return err
			}
			if admits {
				return s.d.Admission.AdmitTx(ctx, tx.Tx, g.App.ID)
			}
			return nil
		})
		if err != nil {
			started.Drop()
		} else {
			started.Run()
		}
	}
	if errors.Is(err, credits.ErrNoCredits) {
		return nil, httpx.NewError(http.StatusPaymentRequired, "payment_required", "the organization has no credits left to run jobs")
	}
	if err != nil {
		return nil, err
	}
	if out.ExpiresAt != nil && s.d.Expiry != nil {
		s.d.Expiry.Wake()
	}
	return v1api.SubmitJob201JSONResponse(out), nil
}

// isNull reports a JSON null (which the schema of an optional object lets through).
func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// dedupe keeps the first of each value, in order.
func dedupe(in []string) []string {
	out := make([]string, 0, len(in))
	seen := make(map[string]bool, len(in))
	for _, v := range in {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// SubmitAs submits a job with input to the app as p, through exactly the path of POST
// /v1/apps/{app_id}/jobs (credits, the flow's execution, admission), for the server's own work such as
// the measurer's jobs. It answers the job's id.
func (s *Service) SubmitAs(ctx context.Context, p *auth.Principal, app uuid.UUID, input json.RawMessage, tags []string) (int64, error) {
	ctx = auth.WithPrincipal(ctx, p)
	res, err := s.SubmitJob(ctx, v1api.SubmitJobRequestObject{AppId: app, Body: &v1api.JobInput{Input: input, Tags: &tags}})
	if err != nil {
		return 0, err
	}
	created, ok := res.(v1api.SubmitJob201JSONResponse)
	if !ok {
		return 0, fmt.Errorf("jobs: submission answered %T", res)
	}
	return created.Id, nil
}
