package flows

import (
	"context"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// CreateFlowView saves a view of a version of a flow of the caller's organization.
func (s *Service) CreateFlowView(ctx context.Context, req platformapi.CreateFlowViewRequestObject) (platformapi.CreateFlowViewResponseObject, error) {
	c := callerOf(ctx)
	b := req.Body
	if strings.TrimSpace(b.ViewName) == "" {
		return nil, httpx.Invalid([]any{"body", "view_name"}, "value_error", "view_name must not be blank")
	}
	d := viewDataOf(b.ViewData)
	var row viewRow
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		f, err := ownFlow(ctx, tx, c, b.FlowId, true)
		if err != nil {
			return err
		}
		if b.FlowVersion > f.LatestVersion {
			return httpx.NotFound("flow version")
		}
		if d.isDefault {
			if err := clearDefault(ctx, tx, f.ID, b.FlowVersion, uuid.Nil); err != nil {
				return err
			}
		}
		err = tx.GetContext(ctx, &row, `INSERT INTO flow_views AS v (organization_id, flow_id, flow_version, view_name,
			ordered_tasks, hidden_tasks, is_default, modified_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			RETURNING `+viewColumns, c.org, f.ID, b.FlowVersion, b.ViewName, pq.Array(d.ordered), pq.Array(d.hidden),
			d.isDefault, c.actor)
		return viewWriteError(err, b.ViewName)
	})
	if err != nil {
		return nil, err
	}
	return platformapi.CreateFlowView201JSONResponse(row.response()), nil
}

// ListFlowViews pages through the views of the flows the caller may see.
func (s *Service) ListFlowViews(ctx context.Context, req platformapi.ListFlowViewsRequestObject) (platformapi.ListFlowViewsResponseObject, error) {
	c := callerOf(ctx)
	p := req.Params
	if p.FlowVersion != nil && p.FlowId == nil {
		return nil, httpx.BadRequest("invalid_parameters", "flow_version is only accepted together with flow_id")
	}
	pg := httpx.NewPaging(p.Page, p.Limit)
	args := []any{c.org}
	conds := []string{`v.organization_id = $1`}
	if !c.admin {
		args = append(args, c.user)
		conds = append(conds, seeCond(c, "$2"))
	}
	if p.FlowId != nil {
		args = append(args, *p.FlowId)
		conds = append(conds, `v.flow_id = $`+strconv.Itoa(len(args)))
	}
	if p.FlowVersion != nil {
		args = append(args, *p.FlowVersion)
		conds = append(conds, `v.flow_version = $`+strconv.Itoa(len(args)))
	}
	from := ` FROM flow_views v JOIN flows f ON f.id = v.flow_id AND f.deleted_at IS NULL WHERE ` + strings.Join(conds, " AND ")
	out := platformapi.ListFlowViews200JSONResponse{FlowViews: []platformapi.FlowViewResponse{}, Page: pg.Page, Limit: pg.Limit}
	if err := s.db.GetContext(ctx, &out.Total, `SELECT count(*)`+from, args...); err != nil {
		return nil, err
	}
	var rows []viewRow
	n := len(args)
	if err := s.db.SelectContext(ctx, &rows, `SELECT `+viewColumns+from+`
		ORDER BY v.flow_id, v.flow_version DESC, v.is_default DESC, v.view_name, v.id
		LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2), append(args, pg.Limit, pg.Offset())...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out.FlowViews = append(out.FlowViews, r.response())
	}
	return out, nil
}

// GetFlowView reads one view.
func (s *Service) GetFlowView(ctx context.Context, req platformapi.GetFlowViewRequestObject) (platformapi.GetFlowViewResponseObject, error) {
	row, err := visibleView(ctx, s.db, callerOf(ctx), req.Id, false)
	if err != nil {
		return nil, err
	}
	return platformapi.GetFlowView200JSONResponse(row.response()), nil
}

// UpdateFlowView renames a view and/or replaces its data.
func (s *Service) UpdateFlowView(ctx context.Context, req platformapi.UpdateFlowViewRequestObject) (platformapi.UpdateFlowViewResponseObject, error) {
	c := callerOf(ctx)
	b := req.Body
	if b.ViewName != nil && strings.TrimSpace(*b.ViewName) == "" {
		return nil, httpx.Invalid([]any{"body", "view_name"}, "value_error", "view_name must not be blank")
	}
	var row viewRow
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		cur, err := visibleView(ctx, tx, c, req.Id, true)
		if err != nil {
			return err
		}
		name, d := cur.Name, viewData{ordered: cur.OrderedTasks, hidden: cur.HiddenTasks, isDefault: cur.IsDefault}
		if b.ViewName != nil {
			name = *b.ViewName
		}
		if b.ViewData != nil {
			d = viewDataOf(*b.ViewData)
		}
		if d.isDefault {
			if err := clearDefault(ctx, tx, cur.FlowID, cur.FlowVersion, cur.ID); err != nil {
				return err
			}
		}
		err = tx.GetContext(ctx, &row, `UPDATE flow_views AS v SET view_name = $2, ordered_tasks = $3, hidden_tasks = $4,
			is_default = $5, updated_at = now(), modified_by = $6 WHERE v.id = $1 RETURNING `+viewColumns,
			cur.ID, name, pq.Array(d.ordered), pq.Array(d.hidden), d.isDefault, c.actor)
		return viewWriteError(err, name)
	})
	if err != nil {
		return nil, err
	}
	return platformapi.UpdateFlowView200JSONResponse(row.response()), nil
}

// DeleteFlowView deletes a view for good.
func (s *Service) DeleteFlowView(ctx context.Context, req platformapi.DeleteFlowViewRequestObject) (platformapi.DeleteFlowViewResponseObject, error) {
	c := callerOf(ctx)
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		cur, err := visibleView(ctx, tx, c, req.Id, true)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM flow_views WHERE id = $1`, cur.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return platformapi.DeleteFlowView204Response{}, nil
}
