package taskmarks

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// BatchPatchTaskTags applies the operations in request order in one transaction. Every execution the
// batch names is read and share-locked first, so the batch is refused as a whole before anything is
// written, and no execution can be deleted while its tags change.
func (s *Service) BatchPatchTaskTags(ctx context.Context, req platformapi.BatchPatchTaskTagsRequestObject) (platformapi.BatchPatchTaskTagsResponseObject, error) {
	c := callerOf(ctx)
	items := req.Body.Tags
	var results []platformapi.PatchFlowTaskTagsResultItem
	// Two batches that add the same tags in opposite orders wait for each other on the unique index; the
	// database breaks such a deadlock by failing one of them, which is then simply run again.
	err := retryDeadlock(10, func() error {
		return dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
			if err := checkExecutions(ctx, tx, c, items); err != nil {
				return err
			}
			results = make([]platformapi.PatchFlowTaskTagsResultItem, len(items))
			for i, it := range items {
				r, err := applyTag(ctx, tx, c, it)
				if err != nil {
					return err
				}
				results[i] = r
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return platformapi.BatchPatchTaskTags200JSONResponse{Tags: results}, nil
}

// checkExecutions refuses the batch at its first item whose execution the caller may not see (404) or
// that is deleted (409), naming the item in the error's details.
func checkExecutions(ctx context.Context, tx *sqlx.Tx, c caller, items []platformapi.PatchFlowTaskTagsRequestItem) error {
	var ids []uuid.UUID
	seen := map[uuid.UUID]bool{}
	for _, it := range items {
		if !seen[it.FlowExecutionId] {
			seen[it.FlowExecutionId] = true
			ids = append(ids, it.FlowExecutionId)
		}
	}
	heads, err := visibleExecutions(ctx, tx, c, ids, true)
	if err != nil {
		return err
	}
	for i, it := range items {
		h, ok := heads[it.FlowExecutionId]
		switch {
		case !ok:
			return atItem(errExecutionNotFound, i)
		case h.Deleted:
			return atItem(errExecutionDeleted, i)
		}
	}
	return nil
}

// atItem is e with details that name the item of the batch it is about.
func atItem(e *httpx.Error, i int) *httpx.Error {
	cp := *e
	cp.Details = []map[string]any{{"loc": []any{"body", "tags", i, "flow_execution_id"}}}
	return &cp
}

// metadataParam is the metadata as a query parameter: nil (SQL NULL) for omitted or JSON null, which
// the unique index and the queries treat as the one value 'null'.
func metadataParam(raw []byte) *string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return nil
	}
	s := string(t)
	return &s
}

// applyTag runs one operation and says what it did.
func applyTag(ctx context.Context, tx *sqlx.Tx, c caller, it platformapi.PatchFlowTaskTagsRequestItem) (platformapi.PatchFlowTaskTagsResultItem, error) {
	r := platformapi.PatchFlowTaskTagsResultItem{Operation: it.Operation, FlowExecutionId: it.FlowExecutionId,
		TaskName: it.TaskName, Tag: it.Tag, TagType: it.TagType}
	if it.TagMetadata != nil {
		r.TagMetadata = it.TagMetadata
	}
	meta := metadataParam(it.TagMetadata)
	var ids []uuid.UUID
	var err error
	if it.Operation == platformapi.Add {
		r.Status = platformapi.TaskTagOperationStatusAdded
		if ids, err = addTag(ctx, tx, c, it, meta); err == nil && len(ids) == 0 {
			r.Status = platformapi.TaskTagOperationStatusAlreadyExists
			ids, err = activeTag(ctx, tx, c, it, meta)
		}
	} else {
		r.Status = platformapi.TaskTagOperationStatusRemoved
		if ids, err = removeTags(ctx, tx, c, it, meta); err == nil && len(ids) == 0 {
			r.Status = platformapi.TaskTagOperationStatusNotFound
		}
	}
	if err != nil {
		return r, err
	}
	if len(ids) > 0 {
		r.TagId = &ids[0]
	} else if it.Operation == platformapi.Add {
		// The identical tag that kept this one out was removed before we could read it: a later
		// attempt of the whole batch sees the final state.
		return r, errRaced
	}
	return r, nil
}

const tagKey = `organization_id = $1 AND flow_execution_id = $2 AND task_name = $3 AND tag = $4 AND tag_type = $5`

// addTag inserts an active tag unless the unique index holds an identical one (then no id). A
// concurrent identical add is waited for, and then either wins or lets this one in.
func addTag(ctx context.Context, tx *sqlx.Tx, c caller, it platformapi.PatchFlowTaskTagsRequestItem, meta *string) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := tx.SelectContext(ctx, &ids, `
		INSERT INTO flow_task_tags (organization_id, flow_execution_id, task_name, tag, tag_type, tag_metadata, modified_by)
		VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7) ON CONFLICT DO NOTHING RETURNING id`,
		c.org, it.FlowExecutionId, it.TaskName, it.Tag, it.TagType, meta, c.actor)
	return ids, err
}

// activeTag finds the active tag identical to an add.
func activeTag(ctx context.Context, tx *sqlx.Tx, c caller, it platformapi.PatchFlowTaskTagsRequestItem, meta *string) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := tx.SelectContext(ctx, &ids, `SELECT id FROM flow_task_tags WHERE `+tagKey+` AND status = 'active'
		AND coalesce(tag_metadata, 'null'::jsonb) = coalesce($6::jsonb, 'null'::jsonb)`,
		c.org, it.FlowExecutionId, it.TaskName, it.Tag, it.TagType, meta)
	return ids, err
}

// removeTags soft-deletes the matching active tags, all of them when meta is nil, and returns their
// ids oldest first.
func removeTags(ctx context.Context, tx *sqlx.Tx, c caller, it platformapi.PatchFlowTaskTagsRequestItem, meta *string) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	err := tx.SelectContext(ctx, &ids, `
		WITH gone AS (
			UPDATE flow_task_tags SET status = 'deleted', updated_at = now(), modified_by = $7
			WHERE `+tagKey+` AND status = 'active' AND ($6::jsonb IS NULL OR coalesce(tag_metadata, 'null'::jsonb) = $6::jsonb)
			RETURNING id, created_at, seq)
		SELECT id FROM gone ORDER BY created_at, seq`,
		c.org, it.FlowExecutionId, it.TaskName, it.Tag, it.TagType, meta, c.actor)
	return ids, err
}

// errRaced makes retryDeadlock run the batch again.
var errRaced = errors.New("an identical tag changed while the batch ran")

// retryDeadlock runs fn up to n times while it fails with a deadlock or errRaced, waiting a random
// moment between runs so that batches that collided do not collide again in step (eight identical
// batches at once, half in the opposite order, outran three plain retries on a loaded machine).
func retryDeadlock(n int, fn func() error) error {
	var err error
	for i := range n {
		if err = fn(); !retryable(err) {
			return err
		}
		time.Sleep(time.Duration(rand.IntN(20*(i+1))) * time.Millisecond)
	}
	return err
}

func retryable(err error) bool {
	var pe *pq.Error
	return errors.Is(err, errRaced) || (errors.As(err, &pe) && pe.Code == "40P01")
}
