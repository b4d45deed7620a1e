package bulk

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/filter"
)

// AddJobTags adds tags to every matching job of the app in one statement. Jobs that already carry
// every tag are not rewritten, a tag a job already has is kept once, and each job keeps its tags in
// their order with the new ones after them. Each changed job gets a TAGS_ADDED history row naming the
// tags it gained.
func (s *Service) AddJobTags(ctx context.Context, req v1api.AddJobTagsRequestObject) (v1api.AddJobTagsResponseObject, error) {
	if err := s.retag(ctx, req.AppId, filter.FromParams(req.Params), req.Body.Tags, addTags); err != nil {
		return nil, err
	}
	return v1api.AddJobTags204Response{}, nil
}

// RemoveJobTags removes tags from every matching job of the app in one statement; jobs carrying none
// of them are not rewritten, and each changed job gets a TAGS_REMOVED history row. The tags stay
// defined on the app.
func (s *Service) RemoveJobTags(ctx context.Context, req v1api.RemoveJobTagsRequestObject) (v1api.RemoveJobTagsResponseObject, error) {
	if err := s.retag(ctx, req.AppId, filter.FromParams(req.Params), req.Body.Tags, removeTags); err != nil {
		return nil, err
	}
	return v1api.RemoveJobTags204Response{}, nil
}

// The tag statements. $1 app, $2 organization, $3 the tags (each once), $4 the history actor. The
// selection reads each job's tags as they were, so the history names exactly the tags that changed,
// while the UPDATE writes from the row's current tags. The selection is materialized and joined by both
// columns of the key it carries: inlined, or joined with j.app_id = $1, a planner that takes the app
// for a small one (statistics behind a new app) scans all its jobs for each selected one.
const (
	addTags = `WITH sel AS MATERIALIZED (
		SELECT ` + dbx.CustomPlan + ` j.app_id, j.id, j.tags FROM jobs j
		WHERE j.app_id = $1 AND j.organization_id = $2 AND NOT j.tags @> $3::text[] AND (%s)),
	changed AS (
		UPDATE jobs j SET tags = j.tags || ARRAY(
		         SELECT t FROM unnest($3::text[]) WITH ORDINALITY AS u(t, o) WHERE t <> ALL (j.tags) ORDER BY o),
		       updated_at = now()
		FROM sel WHERE j.app_id = sel.app_id AND j.id = sel.id
		RETURNING j.id, ARRAY(SELECT t FROM unnest($3::text[]) AS u(t) WHERE t <> ALL (sel.tags)) AS diff)
	INSERT INTO job_history (job_id, app_id, organization_id, event, actor, details)
	SELECT c.id, $1, $2, 'TAGS_ADDED', $4, jsonb_build_object('tags', to_jsonb(c.diff)) FROM changed c`

	removeTags = `WITH sel AS MATERIALIZED (
		SELECT ` + dbx.CustomPlan + ` j.app_id, j.id, j.tags FROM jobs j
		WHERE j.app_id = $1 AND j.organization_id = $2 AND j.tags && $3::text[] AND (%s)),
	changed AS (
		UPDATE jobs j SET tags = ARRAY(
		         SELECT t FROM unnest(j.tags) WITH ORDINALITY AS u(t, o) WHERE t <> ALL ($3::text[]) ORDER BY o),
		       updated_at = now()
		FROM sel WHERE j.app_id = sel.app_id AND j.id = sel.id
		RETURNING j.id, ARRAY(SELECT t FROM unnest($3::text[]) AS u(t) WHERE t = ANY (sel.tags)) AS diff)
	INSERT INTO job_history (job_id, app_id, organization_id, event, actor, details)
	SELECT c.id, $1, $2, 'TAGS_REMOVED', $4, jsonb_build_object('tags', to_jsonb(c.diff)) FROM changed c`
)

func (s *Service) retag(ctx context.Context, appID uuid.UUID, set filter.Set, tags []string, stmt string) error {
	g, p, err := s.d.Grants.Require(ctx, appID, access.Manager)
	if err != nil {
		return err
	}
	t := target{App: g.ID, Org: g.OrganizationID, Filter: set}
	fixed := []any{t.App, t.Org, pq.StringArray(distinct(tags)), actorOf(p).Username}
	where, err := t.compile(len(fixed))
	if err != nil {
		return err
	}
	return dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, fmt.Sprintf(stmt, where.SQL), append(fixed, where.Args...)...)
		return err
	})
}

// distinct keeps the first occurrence of each tag, in order.
func distinct(tags []string) []string {
	seen := make(map[string]bool, len(tags))
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
