package taskmarks

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/httpx"
)

// tagRow is one tag as stored.
type tagRow struct {
	ID         uuid.UUID `db:"id"`
	Org        uuid.UUID `db:"organization_id"`
	Execution  uuid.UUID `db:"flow_execution_id"`
	TaskName   string    `db:"task_name"`
	Tag        string    `db:"tag"`
	TagType    string    `db:"tag_type"`
	Metadata   []byte    `db:"tag_metadata"`
	Status     string    `db:"status"`
	CreatedAt  time.Time `db:"created_at"`
	UpdatedAt  time.Time `db:"updated_at"`
	ModifiedBy string    `db:"modified_by"`
}

const tagColumns = `t.id, t.organization_id, t.flow_execution_id, t.task_name, t.tag, t.tag_type, t.tag_metadata,
	t.status, t.created_at, t.updated_at, t.modified_by`

// api renders the tag; its metadata is always present, null when there is none, and is sent as stored
// rather than decoded into float64s and encoded again.
func (r tagRow) api() platformapi.FlowTaskTagAPI {
	meta := json.RawMessage("null")
	if r.Metadata != nil {
		meta = r.Metadata
	}
	st := platformapi.FlowTaskTagAPIStatus(r.Status)
	created, updated, by := r.CreatedAt, r.UpdatedAt, r.ModifiedBy
	return platformapi.FlowTaskTagAPI{Id: r.ID, OrganizationId: r.Org, FlowExecutionId: r.Execution,
		TaskName: r.TaskName, Tag: r.Tag, TagType: r.TagType, TagMetadata: meta, Status: &st,
		CreatedAt: &created, UpdatedAt: &updated, ModifiedBy: &by}
}

// ListTaskTags pages through the active tags of the executions the caller may see, oldest first.
func (s *Service) ListTaskTags(ctx context.Context, req platformapi.ListTaskTagsRequestObject) (platformapi.ListTaskTagsResponseObject, error) {
	c := callerOf(ctx)
	p := req.Params
	pg := httpx.NewPaging(p.Page, p.Limit)
	args := seeArgs(c, c.org)
	conds := []string{`t.organization_id = $1`, `t.status = 'active'`, seeExecution(c, "$1", "$2")}
	add := func(col string, v any) {
		args = append(args, v)
		conds = append(conds, col+` = $`+strconv.Itoa(len(args)))
	}
	if p.FlowExecutionId != nil {
		add(`t.flow_execution_id`, *p.FlowExecutionId)
	} else {
		// Deleted executions are hidden from lists; their tags can still be read by naming them.
		conds = append(conds, `e.deleted_at IS NULL`, `e.status <> 'deleted'`)
	}
	if p.TaskName != nil {
		add(`t.task_name`, *p.TaskName)
	}
	if p.Tag != nil {
		add(`t.tag`, *p.Tag)
	}
	if p.TagType != nil {
		add(`t.tag_type`, *p.TagType)
	}
	from := ` FROM flow_task_tags t JOIN flow_executions e ON e.id = t.flow_execution_id
		JOIN flows f ON f.id = e.flow_id WHERE ` + strings.Join(conds, " AND ")

	out := platformapi.ListTaskTags200JSONResponse{Tags: []platformapi.FlowTaskTagAPI{}, Page: pg.Page, Limit: pg.Limit}
	if err := s.db.GetContext(ctx, &out.Total, `SELECT count(*)`+from, args...); err != nil {
		return nil, err
	}
	if pg.Offset() >= out.Total {
		return out, nil
	}
	n := len(args)
	var rows []tagRow
	if err := s.db.SelectContext(ctx, &rows, `SELECT `+tagColumns+from+`
		ORDER BY t.created_at, t.seq LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2),
		append(args, pg.Limit, pg.Offset())...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out.Tags = append(out.Tags, r.api())
	}
	return out, nil
}
