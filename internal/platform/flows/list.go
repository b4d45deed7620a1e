package flows

import (
	"context"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/httpx"
)

// ListFlows pages through the latest versions of the flows the caller may see, most recently updated
// first. The page comes from the flows table alone (its list columns follow the latest version) and its
// total from kept counts (see countFlows); then the page's versions are read by key.
func (s *Service) ListFlows(ctx context.Context, req platformapi.ListFlowsRequestObject) (platformapi.ListFlowsResponseObject, error) {
	c := callerOf(ctx)
	p := req.Params
	pg := httpx.NewPaging(p.Page, p.Limit)
	total, err := s.countFlows(ctx, c, p)
	if err != nil {
		return nil, err
	}
	where, args := listFilter(c, p)
	out := flowListReply{Flows: []flowJSON{}, Total: total, Page: pg.Page, Limit: pg.Limit}
	if pg.Offset() >= total {
		return out, nil
	}
	n := len(args)
	var ids []uuid.UUID
	if err := s.db.SelectContext(ctx, &ids, `SELECT f.id FROM flows f WHERE `+where+`
		ORDER BY f.updated_at DESC, f.id DESC LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2),
		append(args, pg.Limit, pg.Offset())...); err != nil {
		return nil, err
	}
	versions, err := latestVersions(ctx, s.db, ids)
	if err != nil {
		return nil, err
	}
	counts, err := executionCounts(ctx, s.db, ids)
	if err != nil {
		return nil, err
	}
	r := s.renderer(c, expand{})
	for _, v := range versions {
		fr, err := r.flow(ctx, v, v.Version, counts[v.FlowID], nil)
		if err != nil {
			return nil, err
		}
		out.Flows = append(out.Flows, fr)
	}
	return out, nil
}

// listFilter is the condition on flows f of a list, with its arguments.
func listFilter(c caller, p platformapi.ListFlowsParams) (string, []any) {
	args := []any{c.org}
	conds := []string{`f.deleted_at IS NULL`}
	if p.Visibility != nil && *p.Visibility == platformapi.Public {
		// Public flows of every organization, the caller's own included.
		conds = append(conds, `f.visibility = 'public'`)
		args = args[:0]
	} else {
		conds = append(conds, `f.organization_id = $1`)
		if !c.admin {
			args = append(args, c.user)
			conds = append(conds, seeCond(c, "$2"))
		}
		if p.Visibility != nil {
			args = append(args, string(*p.Visibility))
			conds = append(conds, `f.visibility = $`+strconv.Itoa(len(args)))
		}
	}
	if p.Status != nil {
		args = append(args, string(*p.Status))
		conds = append(conds, `f.status = $`+strconv.Itoa(len(args)))
	}
	if p.Search != nil {
		args = append(args, "%"+likeEscape(strings.ToLower(*p.Search))+"%")
		conds = append(conds, `lower(coalesce(f.display_name, '') || ' ' || coalesce(f.description, '')) LIKE $`+strconv.Itoa(len(args)))
	}
	return strings.Join(conds, " AND "), args
}

// likeEscape makes a search text match itself: % and _ are ordinary characters in it.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
