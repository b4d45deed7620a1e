package taskexecutions

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/platform/flows"
)

// defaultLease is the lease of a claim that names none (the contract's default).
const defaultLease = 60

// claimedRow is the attempt a claim took, with what the worker needs of its flow version.
type claimedRow struct {
	row
	Flow       uuid.UUID       `db:"flow_id"`
	Version    int             `db:"flow_version"`
	Parameters json.RawMessage `db:"parameters"`
}

// ClaimTaskExecution takes an attempt of an external task for an outside worker, under a lease.
func (s *Service) ClaimTaskExecution(ctx context.Context, req platformapi.ClaimTaskExecutionRequestObject) (platformapi.ClaimTaskExecutionResponseObject, error) {
	p := auth.MustFromContext(ctx)
	b := req.Body
	lease := defaultLease
	if b.LeaseSeconds != nil {
		lease = *b.LeaseSeconds
	}
	var names []string
	if b.TaskNames != nil {
		names = *b.TaskNames
	}
	c := run.Claim{Org: p.OrganizationID, Tasks: names, Flow: b.FlowId, Queue: b.Queue, Lease: lease, Worker: b.Worker,
		Seen: flows.SeenBy(p, "$7")}
	if !flows.Admin(p) {
		c.SeenArg = p.UserID
	}
	var got claimedRow
	var found bool
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		var err error
		found, err = run.ClaimOutside(ctx, tx, c, run.Into{Columns: columns, Dest: &got})
		return err
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return platformapi.ClaimTaskExecution204Response{}, nil
	}
	api, err := withTags(ctx, s.db, got.Execution, []row{got.row})
	if err != nil {
		return nil, err
	}
	out := platformapi.ClaimedTaskExecution{TaskExecution: api[0], FlowId: got.Flow, FlowVersion: got.Version,
		TaskType: run.External, Parameters: map[string]any{}}
	if got.TimeoutAt != nil {
		out.LeaseExpiresAt = *got.TimeoutAt
	} else {
		out.LeaseExpiresAt = time.Now().Add(time.Duration(lease) * time.Second)
	}
	if err := json.Unmarshal(got.Parameters, &out.Parameters); err != nil || out.Parameters == nil {
		out.Parameters = map[string]any{}
	}
	return platformapi.ClaimTaskExecution200JSONResponse(out), nil
}
