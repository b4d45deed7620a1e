// Package counts reads the job counters that triggers keep current in every transaction
// (job_counters, kept by the jobs_count_* triggers through the job_counters_* SQL functions): counts
// per status without scanning jobs.
package counts

import (
	"context"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/dbx"
)

// Statuses are the job statuses, in the contract's order.
var Statuses = []string{"SCHEDULED", "IN_PROGRESS", "SUSPENDED", "PENDING", "FAILED", "CANCELED", "EXPIRED", "COMPLETED"}

// PerStatus returns the number of an app's jobs in each status (every status present, zero or more).
func PerStatus(ctx context.Context, db dbx.DBTX, app uuid.UUID) (map[string]int64, error) {
	var rows []struct {
		Status string `db:"status"`
		N      int64  `db:"n"`
	}
	if err := db.SelectContext(ctx, &rows, `SELECT status, sum(n)::bigint AS n FROM job_counters WHERE app_id = $1 GROUP BY status`, app); err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(Statuses))
	for _, s := range Statuses {
		out[s] = 0
	}
	for _, r := range rows {
		out[r.Status] = r.N
	}
	return out, nil
}
