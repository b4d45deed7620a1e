package taskexecutions

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
)

// row is one task_executions row, its JSON columns as text.
type row struct {
	ID          uuid.UUID       `db:"id"`
	Org         uuid.UUID       `db:"organization_id"`
	Execution   uuid.UUID       `db:"flow_execution_id"`
	Task        string          `db:"task_name"`
	Idx         int             `db:"task_execution_idx"`
	Status      string          `db:"status"`
	Input       json.RawMessage `db:"input"`
	Output      json.RawMessage `db:"output"`
	Detail      json.RawMessage `db:"detail"`
	Error       json.RawMessage `db:"error"`
	StartedAt   *time.Time      `db:"started_at"`
	CompletedAt *time.Time      `db:"completed_at"`
	TimeoutAt   *time.Time      `db:"timeout_at"`
	CreatedAt   time.Time       `db:"created_at"`
	UpdatedAt   time.Time       `db:"updated_at"`
}

// columns are the row's columns, for a task_executions table aliased t; an SQL NULL in a JSON column
// reads as JSON null, which is what the API shows for both.
const columns = `t.id, t.organization_id, t.flow_execution_id, t.task_name, t.task_execution_idx, t.status,
	coalesce(t.input, 'null') AS input, coalesce(t.output, 'null') AS output, coalesce(t.error, 'null') AS error,
	coalesce(t.detail, 'null') AS detail,
	t.started_at, t.completed_at,
	t.timeout_at, t.created_at, t.updated_at`

func (r row) api(tags []platformapi.FlowTaskTagAPI) (platformapi.TaskExecutionWithTagsAPI, error) {
	out := platformapi.TaskExecutionWithTagsAPI{Id: r.ID, OrganizationId: r.Org, FlowExecutionId: r.Execution,
		TaskName: r.Task, TaskExecutionIdx: r.Idx, Status: platformapi.TaskExecutionStatus(r.Status),
		StartedAt: r.StartedAt, CompletedAt: r.CompletedAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Tags: tags}
	if out.Tags == nil {
		out.Tags = []platformapi.FlowTaskTagAPI{}
	}
	for _, f := range []struct {
		raw json.RawMessage
		to  any
	}{{r.Input, &out.Input}, {r.Output, &out.Output}, {r.Detail, &out.Detail}, {r.Error, &out.Error}} {
		if len(f.raw) == 0 {
			continue
		}
		if err := json.Unmarshal(f.raw, f.to); err != nil {
			return out, err
		}
	}
	return out, nil
}

// tagRow is one active tag as the attempts show it.
type tagRow struct {
	ID        uuid.UUID       `db:"id"`
	Org       uuid.UUID       `db:"organization_id"`
	Execution uuid.UUID       `db:"flow_execution_id"`
	Task      string          `db:"task_name"`
	Tag       string          `db:"tag"`
	TagType   string          `db:"tag_type"`
	Metadata  json.RawMessage `db:"tag_metadata"`
	Status    string          `db:"status"`
	CreatedAt time.Time       `db:"created_at"`
	UpdatedAt time.Time       `db:"updated_at"`
	By        string          `db:"modified_by"`
}

func (r tagRow) api() (platformapi.FlowTaskTagAPI, error) {
	status := platformapi.FlowTaskTagAPIStatus(r.Status)
	created, updated, by := r.CreatedAt, r.UpdatedAt, r.By
	out := platformapi.FlowTaskTagAPI{Id: r.ID, OrganizationId: r.Org, FlowExecutionId: r.Execution, TaskName: r.Task,
		Tag: r.Tag, TagType: r.TagType, Status: &status, CreatedAt: &created, UpdatedAt: &updated, ModifiedBy: &by}
	if len(r.Metadata) > 0 {
		if err := json.Unmarshal(r.Metadata, &out.TagMetadata); err != nil {
			return out, err
		}
	}
	return out, nil
}

// withTags turns rows of one execution into the API's attempts, each with the active tags of its task
// (oldest first), read in one query for all the tasks the rows name.
func withTags(ctx context.Context, db dbx.DBTX, exec uuid.UUID, rows []row) ([]platformapi.TaskExecutionWithTagsAPI, error) {
	out := make([]platformapi.TaskExecutionWithTagsAPI, 0, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	seen := map[string]bool{}
	var names []string
	for _, r := range rows {
		if !seen[r.Task] {
			seen[r.Task] = true
			names = append(names, r.Task)
		}
	}
	var tags []tagRow
	if err := db.SelectContext(ctx, &tags, `SELECT id, organization_id, flow_execution_id, task_name, tag, tag_type,
		coalesce(tag_metadata, 'null') AS tag_metadata, status, created_at, updated_at, modified_by
		FROM flow_task_tags WHERE flow_execution_id = $1 AND task_name = ANY($2) AND status = 'active'
		ORDER BY created_at, seq`, exec, pq.Array(names)); err != nil {
		return nil, err
	}
	byTask := map[string][]platformapi.FlowTaskTagAPI{}
	for _, t := range tags {
		a, err := t.api()
		if err != nil {
			return nil, err
		}
		byTask[t.Task] = append(byTask[t.Task], a)
	}
	for _, r := range rows {
		a, err := r.api(byTask[r.Task])
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}
