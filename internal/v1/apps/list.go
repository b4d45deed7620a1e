package apps

import (
	"context"
	"strings"

	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/paging"
)

// listColumns are the sort fields; names sort ignoring case, as people read them.
var listColumns = paging.Columns{
	"id": "a.id", "name": "lower(a.name)", "status": "a.status", "created_at": "a.created_at", "updated_at": "a.updated_at",
}

// ListApps lists the apps the caller can see, filtered and paged; listed apps carry no job_stats and
// no super_tasks.
func (s *Service) ListApps(ctx context.Context, req v1api.ListAppsRequestObject) (v1api.ListAppsResponseObject, error) {
	p := auth.MustFromContext(ctx)
	prm := req.Params
	cond, args := access.VisibleApps(p, 0)
	conds := []string{cond}
	arg := func(v any) string {
		args = append(args, v)
		return dbx.Placeholder(len(args))
	}
	if prm.StatusIn != nil && len(*prm.StatusIn) > 0 {
		statuses := make([]string, len(*prm.StatusIn))
		for i, st := range *prm.StatusIn {
			statuses[i] = string(st)
		}
		conds = append(conds, "a.status = ANY("+arg(pq.StringArray(statuses))+"::text[])")
	}
	if prm.SearchTerm != nil {
		// strpos on lowered text is a substring test in which % and _ are ordinary characters.
		t := arg(*prm.SearchTerm)
		conds = append(conds, "(strpos(lower(a.name), lower("+t+")) > 0 OR strpos(lower(coalesce(a.description, '')), lower("+t+")) > 0)")
	}
	if prm.WorkflowName != nil {
		conds = append(conds, `EXISTS (SELECT 1 FROM flows f
			JOIN flow_versions v ON v.flow_id = f.id AND v.version = f.latest_version
			WHERE f.id = a.api_id AND strpos(lower(v.display_name), lower(`+arg(*prm.WorkflowName)+`)) > 0)`)
	}
	where := strings.Join(conds, " AND ")
	pg := paging.New(prm.Page, prm.Size, (*string)(prm.SortBy), (*string)(prm.OrderBy), listColumns)

	out := v1api.ListApps200JSONResponse{Items: []v1api.App{}, Page: pg.Page, Size: pg.Size}
	if err := s.d.DB.GetContext(ctx, &out.Total, `SELECT count(*) FROM apps a WHERE `+where, args...); err != nil {
		return nil, err
	}
	var rows []row
	q := `SELECT ` + access.AppColumns + `, ` + apiNameColumn + ` FROM apps a WHERE ` + where +
		` ORDER BY ` + pg.OrderBy() + ` OFFSET ` + arg(pg.Offset()) + ` LIMIT ` + arg(pg.Limit())
	if err := s.d.DB.SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out.Items = append(out.Items, ToResponse(r.App, r.APIName))
	}
	return out, nil
}
