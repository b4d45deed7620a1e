package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/counts"
	"github.com/loopwork/loopwork/internal/v1/filter"
	"github.com/loopwork/loopwork/internal/v1/paging"
)

// selection is a compiled WHERE over `jobs j` for one app: $1 is the app, $2 its organization, then
// the route's own arguments, then the filters'.
type selection struct {
	cond string
	args []any
	// statuses, when set, are the statuses whose counters count the selection exactly: the selection
	// is "every job of the app" or "every job in these statuses".
	statuses []string
	// set is the filter the selection was compiled from; cacheable says the selection is that filter
	// and nothing else (no condition of the route itself), so its count may be shared by filter hash.
	set       filter.Set
	cacheable bool
}

// filtered resolves the app for any member and compiles the filters of a route's parameters.
func (s *Service) filtered(ctx context.Context, appID uuid.UUID, params any, routeArgs []any, extra ...string) (*access.Grant, filter.Set, selection, error) {
	g, _, err := s.d.Grants.Require(ctx, appID, access.Labeler)
	if err != nil {
		return nil, filter.Set{}, selection{}, err
	}
	set := filter.FromParams(params)
	sel, err := newSelection(g, set, routeArgs, extra...)
	return g, set, sel, err
}

// newSelection compiles the filters of a route. extra are conditions of the route itself, over
// routeArgs numbered from $3.
func newSelection(g *access.Grant, set filter.Set, routeArgs []any, extra ...string) (selection, error) {
	args := append([]any{g.App.ID, g.App.OrganizationID}, routeArgs...)
	w, err := set.Compile(len(args))
	if err != nil {
		var pr *filter.Problem
		if errors.As(err, &pr) {
			return selection{}, pr.HTTP()
		}
		return selection{}, err
	}
	// The plan of a filtered query depends on its values (an app of ten jobs or of a million).
	conds := append([]string{dbx.CustomPlan + " j.app_id = $1", "j.organization_id = $2"}, extra...)
	if w.SQL != "TRUE" {
		conds = append(conds, w.SQL)
	}
	sel := selection{cond: strings.Join(conds, " AND "), args: append(args, w.Args...), set: set}
	if len(extra) == 0 {
		sel.statuses = statusesOnly(set)
		sel.cacheable = len(routeArgs) == 0
	}
	return sel, nil
}

// statusesOnly returns the statuses a set selects when it selects by status alone (every status when
// it has no filter at all), or nil when it has other filters.
func statusesOnly(set filter.Set) []string {
	rest := set
	rest.StatusIn = nil
	if w, err := rest.Compile(0); err != nil || w.SQL != "TRUE" {
		return nil
	}
	if len(set.StatusIn) == 0 {
		return counts.Statuses
	}
	return dedupe(set.StatusIn)
}

// next is the placeholder of the argument that would be appended now.
func (s *selection) next() string { return dbx.Placeholder(len(s.args) + 1) }

// add appends an argument and returns its placeholder. The arguments are copied first, so a copy of
// the selection taken before (for its count) keeps its own.
func (s *selection) add(v any) string {
	ph := s.next()
	s.args = append(s.args[:len(s.args):len(s.args)], v)
	return ph
}

// paged is the selection's query text with LIMIT and OFFSET, and its arguments; the selection itself
// is left as it was, for its count.
func (s selection) paged(query string, pg paging.Page) (string, []any) {
	q := fmt.Sprintf("%s LIMIT %s OFFSET %s", query, s.add(pg.Limit()), s.add(pg.Offset()))
	return q, s.args
}

// total counts the selection as the contract's list total describes: exactly from the status
// counters when they answer (no filter, or statusIn alone), from the count countJobs keeps for the same
// filter when it is under a minute old, and otherwise by counting now (and keeping that count). A page
// shorter than its size already tells the exact total, which spares any count.
func (s *Service) total(ctx context.Context, g *access.Grant, sel selection, pg paging.Page, got int) (int64, error) {
	if got < pg.Limit() && (got > 0 || pg.Offset() == 0) {
		return int64(pg.Offset() + got), nil
	}
	if sel.statuses != nil || sel.cacheable {
		per, _, _, err := s.statusCounts(ctx, g, sel.set, sel, true)
		if err != nil {
			return 0, err
		}
		var n int64
		for _, v := range per {
			n += v
		}
		return n, nil
	}
	var n int64
	err := s.reader().GetContext(ctx, &n, `SELECT count(*) FROM jobs j WHERE `+sel.cond, sel.args...)
	return n, err
}

// jobSort is the contract's sortBy of jobs.
var jobSort = paging.Columns{"id": "j.id", "created_at": "j.created_at", "updated_at": "j.updated_at",
	"completed_at": "j.completed_at", "status": "j.status", "score": "j.score", "trust_score": "j.trust_score"}

// nullableSort are the sort columns that may be null; the contract puts nulls last in either
// direction, which PostgreSQL does only for ascending order by itself.
var nullableSort = map[string]bool{"completed_at": true, "score": true, "trust_score": true}

// jobPage reads the paging parameters of a job list.
func jobPage(page, size *int, sortBy, orderBy *string) (paging.Page, string) {
	pg := paging.New(page, size, sortBy, orderBy, jobSort)
	order := pg.OrderBy()
	if sortBy != nil && nullableSort[*sortBy] && orderBy != nil && *orderBy == "desc" {
		col := jobSort[*sortBy]
		order = strings.Replace(order, col+" DESC", col+" DESC NULLS LAST", 1)
	}
	return pg, order
}
