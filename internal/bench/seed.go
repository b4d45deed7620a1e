// Package bench measures the /v1 hot paths on a realistic volume: one app with a million jobs.
// It is run by `make bench`; figures are latency percentiles at 16 concurrent clients through the real
// HTTP stack, and ratios against pgbench running the same INSERT in the same run.
package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// Tags are the tag vocabulary of seeded jobs; each job carries about three of them.
var Tags = func() []string {
	out := make([]string, 20)
	for i := range out {
		out[i] = fmt.Sprintf("t%d", i)
	}
	return out
}()

// SeedJobs inserts n jobs into an app in batches of 100,000 statements, with statuses, processing
// states, tags, inputs, scores and dates spread the way a busy app's are. Varied means the list's
// filters meet realistic selectivity; unfinished=true makes every job cancelable instead. Of the varied
// jobs a third wait in the labeling queue of an app without a flow (SCHEDULED or SUSPENDED), about as
// many of each of the ten priorities, so the queue's order by priority is met as it is in use.
func SeedJobs(ctx context.Context, db *sqlx.DB, org, app uuid.UUID, n int, unfinished bool) (time.Duration, error) {
	start := time.Now()
	statuses := `ARRAY['COMPLETED','COMPLETED','COMPLETED','COMPLETED','SCHEDULED','SCHEDULED','SCHEDULED','SUSPENDED',
		'IN_PROGRESS','FAILED','CANCELED','EXPIRED']`
	if unfinished {
		statuses = `ARRAY['SCHEDULED','SCHEDULED','SUSPENDED','IN_PROGRESS','PENDING']`
	}
	const batch = 100_000
	for from := 0; from < n; from += batch {
		to := from + batch - 1
		if to >= n {
			to = n - 1
		}
		_, err := db.ExecContext(ctx, `
			INSERT INTO jobs (organization_id, app_id, status, processing_state, input, metadata, tags, batch_id,
			                  priority, score, trust_score, correct, reviewed, created_at, completed_at)
			SELECT $1, $2, s.status,
			       CASE s.status WHEN 'COMPLETED' THEN 'DONE' WHEN 'SCHEDULED' THEN 'AWAITING_HUMAN'
			            WHEN 'SUSPENDED' THEN 'AWAITING_HUMAN' WHEN 'IN_PROGRESS' THEN 'PROCESSING'
			            WHEN 'PENDING' THEN 'QUEUED' ELSE 'ERROR' END,
			       jsonb_build_object('text', 'item ' || i, 'n', i, 'lang', (ARRAY['en','de','fr'])[1 + i % 3]),
			       jsonb_build_object('source', 'seed', 'shard', i % 16),
			       ARRAY(SELECT 't' || k FROM generate_series(0, 19) k WHERE (i::bigint * 31 + k * 17) % 7 = 0),
			       'batch-' || (i / 10000),
			       1 + i % 10,
			       (i % 1000) / 1000.0,
			       ((i::bigint * 7) % 1000) / 1000.0,
			       CASE WHEN s.status = 'COMPLETED' AND i % 5 = 0 THEN (i % 2 = 0) END,
			       CASE WHEN s.status = 'COMPLETED' AND i % 5 = 0 THEN (CASE WHEN i % 2 = 0 THEN 'CORRECT' ELSE 'NOT_CORRECT' END) END,
			       now() - ($4::int - i) * interval '1 second',
			       CASE WHEN s.status = 'COMPLETED' THEN now() - ($4::int - i) * interval '1 second' + interval '5 minutes' END
			FROM generate_series($3::int, $5::int) i,
			     LATERAL (SELECT (`+statuses+`)[1 + (i::bigint * 7919) % array_length(`+statuses+`, 1)] AS status) s`,
			org, app, from, n, to)
		if err != nil {
			return 0, fmt.Errorf("seed jobs %d..%d: %w", from, to, err)
		}
	}
	if _, err := db.ExecContext(ctx, `VACUUM ANALYZE jobs`); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}
