package reviews

// The reviews of executions started together (the first steps of /v1 submissions that arrive at once,
// see run.Engine.CreateMany) are opened together: one read of what they review, one of their reviewers
// per flow, and one statement for the reviews and their assignments, where each took three.

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/internal/engine/executors"
)

// togetherKey groups the reviews one Service opens together.
type togetherKey struct{ s *Service }

// toOpen is one attempt's review, as the executor saw it.
type toOpen struct {
	in    executors.Input
	p     params
	input json.RawMessage
}

// together is the attempt's review in the form the engine may open with others (executors.Together);
// nil when the engine did not say which version runs (opening reads it then).
func (s *Service) together(in executors.Input, p params, input json.RawMessage) *executors.Together {
	if in.Version == 0 {
		return nil
	}
	return &executors.Together{Key: togetherKey{s}, Item: toOpen{in: in, p: p, input: input}, Write: s.openMany}
}

// openMany opens the reviews of items (toOpen) in tx, as open does each one's.
func (s *Service) openMany(ctx context.Context, tx *sqlx.Tx, items []any) error {
	os := make([]opening, len(items))
	var execs, sources []string
	for i, it := range items {
		t := it.(toOpen)
		os[i] = describe(t.in, t.p, t.input)
		execs, sources = append(execs, t.in.Execution.String()), append(sources, sourceOf(t.p, t.in.Preds))
	}
	var last []struct {
		Exec   uuid.UUID       `db:"flow_execution_id"`
		Task   string          `db:"task_name"`
		Idx    int             `db:"task_execution_idx"`
		Output json.RawMessage `db:"output"`
	}
	// Each source is looked up by its attempts' key, as opening looks up one: a join would leave the
	// planner free to scan the table for a batch it takes for large.
	if err := tx.SelectContext(ctx, &last, `SELECT s.x AS flow_execution_id, s.n AS task_name, l.task_execution_idx, l.output
		FROM unnest($1::uuid[], $2::text[]) AS s (x, n), LATERAL (
			SELECT t.task_execution_idx, coalesce(t.output, 'null') AS output FROM task_executions t
			WHERE t.flow_execution_id = s.x AND t.task_name = s.n AND t.status = 'completed'
			ORDER BY t.task_execution_idx DESC LIMIT 1) l`, pq.Array(execs), pq.Array(sources)); err != nil {
		return err
	}
	type key struct {
		exec uuid.UUID
		task string
	}
	found := make(map[key]int, len(last))
	for i, l := range last {
		found[key{l.Exec, l.Task}] = i
	}
	for i, it := range items {
		t := it.(toOpen)
		if sources[i] == "" {
			continue
		}
		j, ok := found[key{t.in.Execution, sources[i]}]
		if !ok {
			if err := noSource(t.p, sources[i]); err != nil {
				return err
			}
			continue
		}
		os[i] = reviewed(os[i], t.p, sources[i], last[j].Idx, last[j].Output)
	}
	_, err := s.insertMany(ctx, tx, os)
	return err
}

// openRow is a review of insertMany's statement (jsonb_to_recordset).
type openRow struct {
	Org          uuid.UUID       `json:"org"`
	Exec         uuid.UUID       `json:"exec"`
	Target       string          `json:"target"`
	TargetIdx    int             `json:"target_idx"`
	Source       string          `json:"source"`
	SourceIdx    int             `json:"source_idx"`
	Instructions *string         `json:"instructions"`
	Meta         json.RawMessage `json:"meta"`
	Required     int             `json:"required"`
	TimeoutAt    *time.Time      `json:"timeout_at"`
	OnTimeout    *string         `json:"on_timeout"`
	Holds        bool            `json:"holds"`
	Actor        string          `json:"actor"`
	Named        bool            `json:"named"`
	Users        []uuid.UUID     `json:"users"`
}

// insertMany writes the reviews os with their assignments in one statement, and their timeout jobs, and
// answers their ids in order. The reviewers of reviews that name none are read once for each flow. The
// unique index on open reviews refuses a second one for the same target attempt (errOpen). Users named
// reserve a review for themselves (users_named, see internal/engine/reviewrule); defaulted ones leave it
// open to the /v1 app's labelers too. The assignments are stamped one after another in the order of the
// users, so "oldest first" lists them as they were assigned.
func (s *Service) insertMany(ctx context.Context, tx *sqlx.Tx, os []opening) ([]uuid.UUID, error) {
	rows := make([]openRow, len(os))
	byFlow := map[[2]uuid.UUID][]uuid.UUID{}
	for i, o := range os {
		users, ok := byFlow[[2]uuid.UUID{o.org, o.flow}]
		if !ok || len(o.users) > 0 {
			var err error
			if users, err = reviewers(ctx, tx, o); err != nil {
				return nil, err
			}
			if len(o.users) == 0 {
				byFlow[[2]uuid.UUID{o.org, o.flow}] = users
			}
		}
		if o.required > len(users) && !(len(users) == 0 && o.required == 1) {
			return nil, tooFew{o.required, len(users)}
		}
		content := o.content
		if content == nil {
			content = json.RawMessage(`null`)
		}
		meta, err := json.Marshal(map[string]any{"flow_id": o.flow, "flow_version": o.version, "source_output": content})
		if err != nil {
			return nil, err
		}
		rows[i] = openRow{Org: o.org, Exec: o.execution, Target: o.target, TargetIdx: o.targetIdx, Source: o.source,
			SourceIdx: o.sourceIdx, Instructions: o.instructions, Meta: meta, Required: o.required, TimeoutAt: o.timeoutAt,
			OnTimeout: o.onTimeout, Holds: o.holds, Actor: o.actor, Named: len(o.users) > 0, Users: users}
	}
	doc, err := json.Marshal(rows)
	if err != nil {
		return nil, err
	}
	var ids []struct {
		Ord int       `db:"ord"`
		ID  uuid.UUID `db:"id"`
	}
	if err := tx.SelectContext(ctx, &ids, `WITH v AS (
			SELECT * FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (org uuid, exec uuid, target text, target_idx int, source text,
				source_idx int, instructions text, meta jsonb, required int, timeout_at timestamptz, on_timeout text, holds boolean,
				actor text, named boolean, users uuid[])) WITH ORDINALITY AS v (org, exec, target, target_idx, source, source_idx,
				instructions, meta, required, timeout_at, on_timeout, holds, actor, named, users, ord)
		), r AS (
			INSERT INTO human_review_tasks (organization_id, flow_execution_id, target_task_name, target_task_execution_idx,
				source_task_name, source_task_execution_idx, instructions, task_metadata, required_approvals, timeout_at, on_timeout,
				holds_attempt, modified_by, users_named)
			SELECT org, exec, target, target_idx, source, source_idx, instructions, meta, required, timeout_at, on_timeout, holds,
				actor, named FROM v ORDER BY ord
			ON CONFLICT (flow_execution_id, target_task_name, target_task_execution_idx) WHERE status <> 'completed' DO NOTHING
			RETURNING id, flow_execution_id, target_task_name, target_task_execution_idx
		), rv AS (
			SELECT v.*, r.id FROM r JOIN v ON v.exec = r.flow_execution_id AND v.target = r.target_task_name
				AND v.target_idx = r.target_task_execution_idx
		), a AS (
			INSERT INTO human_review_assignments (organization_id, human_review_task_id, user_id, modified_by, created_at, updated_at)
			SELECT rv.org, rv.id, u.u, rv.actor, clock_timestamp(), clock_timestamp()
			FROM rv, unnest(rv.users) WITH ORDINALITY AS u (u, o) ORDER BY rv.ord, u.o
		)
		SELECT ord, id FROM rv ORDER BY ord`, string(doc)); err != nil {
		return nil, err
	}
	if len(ids) < len(os) {
		return nil, errOpen{}
	}
	out := make([]uuid.UUID, len(ids))
	var timeouts []river.InsertManyParams
	for i, r := range ids {
		out[i] = r.ID
		if at := os[r.Ord-1].timeoutAt; at != nil {
			timeouts = append(timeouts, river.InsertManyParams{Args: timeoutArgs{Review: r.ID}, InsertOpts: &river.InsertOpts{ScheduledAt: *at}})
		}
	}
	if len(timeouts) > 0 {
		if _, err := s.queue.InsertManyTx(ctx, tx.Tx, timeouts); err != nil {
			return nil, err
		}
	}
	return out, nil
}
