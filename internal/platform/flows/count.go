package flows

import (
	"context"
	"strconv"

	"github.com/loopwork/loopwork/gen/platformapi"
)

// countFlows is the total of a flow list. Without a text search it adds up the counts the flows_counted
// trigger keeps per organization, visibility and status, and counts rows only for the private flows a
// non-admin caller created or is invited to; a search counts the matching rows.
func (s *Service) countFlows(ctx context.Context, c caller, p platformapi.ListFlowsParams) (int, error) {
	if p.Search != nil {
		where, args := listFilter(c, p)
		var total int
		err := s.db.GetContext(ctx, &total, `SELECT count(*) FROM flows f WHERE `+where, args...)
		return total, err
	}
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	status := `TRUE`
	if p.Status != nil {
		status = `status = ` + arg(string(*p.Status))
	}
	if p.Visibility != nil && *p.Visibility == platformapi.Public {
		var total int
		err := s.db.GetContext(ctx, &total, `SELECT coalesce(sum(n), 0) FROM flow_counts
			WHERE visibility = 'public' AND `+status, args...)
		return total, err
	}
	org := arg(c.org)
	vis := `TRUE`
	if p.Visibility != nil {
		vis = `visibility = ` + arg(string(*p.Visibility))
	}
	counted := `SELECT coalesce(sum(n), 0) FROM flow_counts WHERE organization_id = ` + org + ` AND ` + vis + ` AND ` + status
	if c.admin {
		var total int
		err := s.db.GetContext(ctx, &total, counted, args...)
		return total, err
	}
	// Private flows are seen only by their creator and their guests: those few are counted one by one.
	me := arg(c.user)
	private := `f.organization_id = ` + org + ` AND f.deleted_at IS NULL AND f.visibility = 'private' AND ` + vis + ` AND ` + status
	var total int
	err := s.db.GetContext(ctx, &total, `SELECT (`+counted+` AND visibility <> 'private')
		+ (SELECT count(*) FROM (
			SELECT f.id FROM flows f WHERE `+private+` AND f.created_by = `+me+`
			UNION
			SELECT f.id FROM flow_invitations i JOIN flows f ON f.id = i.flow_id WHERE i.user_id = `+me+` AND `+private+`) mine)`,
		args...)
	return total, err
}
