package emailtasks

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// CreateEmailTask creates a task with a new address, or returns the active task of the same flow and
// task name (200).
func (s *Service) CreateEmailTask(ctx context.Context, req platformapi.CreateEmailTaskRequestObject) (platformapi.CreateEmailTaskResponseObject, error) {
	p := auth.MustFromContext(ctx)
	if err := writer(p); err != nil {
		return nil, err
	}
	b := req.Body
	if b.TaskName != nil && b.FlowId == nil {
		return nil, httpx.Invalid([]any{"body", "task_name"}, "value_error", "task_name names a task of the flow: send flow_id with it")
	}
	if b.FlowId != nil {
		var hasTask *bool
		err := s.d.DB.GetContext(ctx, &hasTask, `SELECT (SELECT jsonb_path_exists(v.definition, '$.tasks[*] ? (@.name == $n)', jsonb_build_object('n', $3::text))
			FROM flow_versions v WHERE v.flow_id = f.id ORDER BY v.version DESC LIMIT 1)
			FROM flows f WHERE f.organization_id = $1 AND f.id = $2 AND f.deleted_at IS NULL`, p.OrganizationID, *b.FlowId, b.TaskName)
		if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
			return nil, httpx.NotFound("flow")
		}
		if err != nil {
			return nil, err
		}
		if b.TaskName != nil && (hasTask == nil || !*hasTask) {
			return nil, httpx.Invalid([]any{"body", "task_name"}, "value_error", "the flow's latest version has no task named "+*b.TaskName)
		}
	}
	var id uuid.UUID
	err := s.d.DB.GetContext(ctx, &id, `INSERT INTO email_tasks (id, organization_id, user_id, name, description, flow_id, task_name, local_part)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (organization_id, flow_id, task_name) WHERE status = 'active' AND deleted_at IS NULL
			AND flow_id IS NOT NULL AND task_name IS NOT NULL DO NOTHING RETURNING id`,
		uuid.New(), p.OrganizationID, p.User(), b.Name, b.Description, b.FlowId, b.TaskName, newLocalPart())
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		// The same flow and task name have an active task already: that one is the answer.
		if err := s.d.DB.GetContext(ctx, &id, `SELECT id FROM email_tasks WHERE organization_id = $1 AND flow_id = $2
			AND task_name = $3 AND status = 'active' AND deleted_at IS NULL`, p.OrganizationID, *b.FlowId, *b.TaskName); err != nil {
			return nil, err
		}
		r, err := get(ctx, s.d.DB, p.OrganizationID, id)
		if err != nil {
			return nil, err
		}
		return platformapi.CreateEmailTask200JSONResponse(s.response(r)), nil
	}
	if err != nil {
		return nil, err
	}
	r, err := get(ctx, s.d.DB, p.OrganizationID, id)
	if err != nil {
		return nil, err
	}
	return platformapi.CreateEmailTask201JSONResponse(s.response(r)), nil
}

// ListEmailTasks lists the organization's tasks, newest first.
func (s *Service) ListEmailTasks(ctx context.Context, req platformapi.ListEmailTasksRequestObject) (platformapi.ListEmailTasksResponseObject, error) {
	p := auth.MustFromContext(ctx)
	pg := httpx.NewPaging(req.Params.Page, req.Params.Limit)
	const where = ` WHERE t.organization_id = $1 AND t.deleted_at IS NULL AND ($2::uuid IS NULL OR t.flow_id = $2)`
	var total int
	if err := s.d.DB.GetContext(ctx, &total, `SELECT count(*) FROM email_tasks t`+where, p.OrganizationID, req.Params.FlowId); err != nil {
		return nil, err
	}
	var rows []row
	if err := s.d.DB.SelectContext(ctx, &rows, `SELECT `+columns+from+where+` ORDER BY t.created_at DESC, t.id LIMIT $3 OFFSET $4`,
		p.OrganizationID, req.Params.FlowId, pg.Limit, pg.Offset()); err != nil {
		return nil, err
	}
	out := platformapi.ListEmailTasks200JSONResponse{EmailTasks: make([]platformapi.EmailTaskResponse, len(rows)),
		Total: total, Page: pg.Page, Limit: pg.Limit}
	for i, r := range rows {
		out.EmailTasks[i] = s.response(r)
	}
	return out, nil
}

// GetEmailTaskStatus returns a task with its counts.
func (s *Service) GetEmailTaskStatus(ctx context.Context, req platformapi.GetEmailTaskStatusRequestObject) (platformapi.GetEmailTaskStatusResponseObject, error) {
	p := auth.MustFromContext(ctx)
	r, err := get(ctx, s.d.DB, p.OrganizationID, req.TaskId)
	if err != nil {
		return nil, err
	}
	n := int(r.Count)
	out := platformapi.GetEmailTaskStatus200JSONResponse{TaskId: r.ID, EmailAddress: openapi_types.Email(s.address(r)),
		Status: platformapi.EmailTaskStatusStatus(r.Status), CreatedAt: r.CreatedAt.UTC(), EmailCount: &n}
	if r.Last != nil {
		l := r.Last.UTC()
		out.LastEmailReceived = &l
	}
	return out, nil
}

// DeleteEmailTask retires the task: its address rejects mail from now on and is never reused; its
// recorded messages are deleted.
func (s *Service) DeleteEmailTask(ctx context.Context, req platformapi.DeleteEmailTaskRequestObject) (platformapi.DeleteEmailTaskResponseObject, error) {
	p := auth.MustFromContext(ctx)
	if err := writer(p); err != nil {
		return nil, err
	}
	err := dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		var id uuid.UUID
		err := tx.GetContext(ctx, &id, `UPDATE email_tasks SET deleted_at = now(), status = 'disabled'
			WHERE organization_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING id`, p.OrganizationID, req.TaskId)
		if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
			return errNotFound
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM email_messages WHERE email_task_id = $1`, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return platformapi.DeleteEmailTask204Response{}, nil
}
