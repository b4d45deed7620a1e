package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// Definition is a valid flow definition of n tasks and about 2n edges, of mixed task types with
// parameters and jq conditions, as a large real flow has: task i depends on tasks i-1 and i-7.
func Definition(n int) map[string]any {
	tasks := make([]any, n)
	edges := make([]any, 0, 2*n)
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("task_%05d", i)
		var t map[string]any
		switch i % 4 {
		case 0:
			t = map[string]any{"type": "transform", "parameters": map[string]any{"expression": fmt.Sprintf("{value: .value + %d}", i)}}
		case 1:
			t = map[string]any{"type": "condition", "parameters": map[string]any{"expression": ".value > 10"}}
		case 2:
			t = map[string]any{"type": "http_request", "parameters": map[string]any{"url": "https://example.com/items/" + name,
				"method": "POST", "headers": map[string]any{"X-Task": name}}, "retry": map[string]any{"max_attempts": 3, "backoff_seconds": 2}}
		default:
			t = map[string]any{"type": "delay", "parameters": map[string]any{"seconds": 5}, "timeout_seconds": 60}
		}
		t["name"] = name
		tasks[i] = t
		if i > 0 {
			edges = append(edges, map[string]any{"source": fmt.Sprintf("task_%05d", i-1), "target": name})
		}
		if i >= 7 {
			edges = append(edges, map[string]any{"source": fmt.Sprintf("task_%05d", i-7), "target": name, "condition": ".value != null"})
		}
	}
	return map[string]any{"version": 1, "tasks": tasks, "edges": edges}
}

// SeedFlows writes n flows of org created by user straight into the database, one in ten private, with
// a small definition each, and returns how long it took.
func SeedFlows(ctx context.Context, db *sqlx.DB, org, user uuid.UUID, n int) (time.Duration, error) {
	start := time.Now()
	_, err := db.ExecContext(ctx, `
		WITH f AS (
			INSERT INTO flows (organization_id, created_by, created_at, updated_at)
			SELECT $1, $2, now() - make_interval(secs => g), now() - make_interval(secs => g) FROM generate_series(1, $3) g
			RETURNING id, created_at)
		INSERT INTO flow_versions (flow_id, version, organization_id, display_name, description, status, visibility,
			definition, valid, created_at, updated_at)
		SELECT f.id, 1, $1, 'Flow ' || row_number() OVER (), 'Benchmark flow', 'draft',
			CASE WHEN random() < 0.1 THEN 'private' ELSE 'organization' END,
			'{"version": 1, "tasks": [{"name": "wait", "type": "delay", "parameters": {"seconds": 1}}], "edges": []}', true,
			f.created_at, f.created_at
		FROM f`, org, user, n)
	if err != nil {
		return 0, err
	}
	_, err = db.ExecContext(ctx, `VACUUM ANALYZE flows`)
	return time.Since(start), err
}
