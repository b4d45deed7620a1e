package apps

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/bulk"
	"github.com/loopwork/loopwork/internal/v1/filter"
)

// unfinishedStatuses are the jobs a flow change resubmits: those that have not started running on
// their flow yet or wait for a person. IN_PROGRESS jobs finish on the flow they started on.
var unfinishedStatuses = []string{"PENDING", "SCHEDULED", "SUSPENDED"}

// UpdateApp changes the fields present in the body. When the flow changes and rerun_unfinished_jobs
// is set, a RERUN_JOBS bulk operation is queued in the same transaction and the reply is 202.
func (s *Service) UpdateApp(ctx context.Context, req v1api.UpdateAppRequestObject) (v1api.UpdateAppResponseObject, error) {
	g, p, err := s.d.Grants.Require(ctx, req.AppId, access.Manager)
	if err != nil {
		return nil, err
	}
	in := req.Body
	var opID *uuid.UUID
	var batchID *string
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		var cur access.App
		if err := tx.GetContext(ctx, &cur, `SELECT `+access.AppColumns+` FROM apps a WHERE a.id = $1 FOR UPDATE`, g.App.ID); err != nil {
			return err
		}
		next, err := applyInput(ctx, tx, cur, in)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE apps SET name = $2, description = $3, api_id = $4, status = $5,
			job_ttl_seconds = $6, settings = $7, updated_at = now(), modified_by = $8 WHERE id = $1`,
			cur.ID, next.Name, next.Description, next.APIID, next.Status, next.JobTTLSeconds, string(next.Settings), p.Actor())
		if err != nil {
			return writeError(err, next.Name)
		}
		// An app that may now start what waits (ACTIVE again, more room, a new flow) admits it.
		if next.Status == "ACTIVE" && next.APIID != nil && s.d.Admission != nil {
			if err := s.d.Admission.AdmitTx(ctx, tx.Tx, cur.ID); err != nil {
				return err
			}
		}
		if in.RerunUnfinishedJobs == nil || !*in.RerunUnfinishedJobs || sameFlow(cur.APIID, next.APIID) {
			return nil
		}
		// The operation row and its worker job commit with the change, so the rerun cannot be lost.
		batch := uuid.NewString()
		var by *string
		if p.Credential != auth.CredentialAPIKey {
			by = &p.Email
		}
		id, err := bulk.Start(ctx, tx, s.d.Queue, bulk.NewOperation{App: cur.ID, Org: cur.OrganizationID, Type: bulk.TypeRerun,
			Filter: filter.Set{StatusIn: unfinishedStatuses}, BatchID: &batch, CreatedBy: by})
		if err != nil {
			return err
		}
		opID, batchID = &id, &batch
		return nil
	})
	if err != nil {
		return nil, err
	}
	a, err := load(ctx, s.d.DB, g.App.ID)
	if err != nil {
		return nil, err
	}
	body := v1api.AppBatchIdOperationId{AppId: a.Id, App: a, BatchId: batchID, OperationId: opID}
	if opID != nil {
		return v1api.UpdateApp202JSONResponse(body), nil
	}
	return v1api.UpdateApp200JSONResponse(body), nil
}

// applyInput returns the app with the fields present in the body applied; description, api_id and
// job_ttl_seconds sent as null are cleared, and a new api_id must be a flow of the app's organization.
func applyInput(ctx context.Context, db dbx.DBTX, cur access.App, in *v1api.AppInput) (access.App, error) {
	next := cur
	if in.Name != nil {
		n, err := appName(*in.Name)
		if err != nil {
			return next, err
		}
		next.Name = n
	}
	if in.Description.IsSpecified() {
		next.Description = nullableString(in.Description.Get())
	}
	if in.ApiId.IsSpecified() {
		api, err := newAPIID(ctx, db, cur.OrganizationID, in)
		if err != nil {
			return next, err
		}
		next.APIID = api
	}
	if in.Status != nil {
		next.Status = string(*in.Status)
	}
	if in.JobTtlSeconds.IsSpecified() {
		next.JobTTLSeconds = nullableInt(in.JobTtlSeconds.Get())
	}
	if in.Settings != nil {
		next.Settings = json.RawMessage(settingsJSON(mergeSettings(cur.ParsedSettings(), in.Settings)))
	}
	return next, nil
}

func sameFlow(a, b *uuid.UUID) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
