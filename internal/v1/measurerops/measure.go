package measurerops

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/v1/filter"
	"github.com/loopwork/loopwork/internal/v1/measurerconfig"
	"github.com/loopwork/loopwork/internal/v1/metrics"
)

// measure advances a MEASURE: it submits the jobs not yet submitted, answers false while some have
// not finished, and scores them once all have.
func (w *Worker) measure(ctx context.Context, op operation, cfg measurerconfig.Config) (bool, error) {
	db := w.s.d.DB
	var unmeasured []struct {
		Baseline int64           `db:"baseline_id"`
		Input    json.RawMessage `db:"input"`
	}
	if err := db.SelectContext(ctx, &unmeasured, `SELECT r.baseline_id, r.input FROM measurement_dataset_records r
		WHERE r.dataset_id = $1 AND NOT EXISTS (SELECT 1 FROM measurement_jobs m WHERE m.operation_id = $2 AND m.baseline_id = r.baseline_id)
		ORDER BY r.baseline_id`, op.Dataset, op.ID); err != nil {
		return false, err
	}
	for _, r := range unmeasured {
		// The job and its link are two transactions: a crash between them leaves one job measured by
		// nobody, and the record gets another on the retry.
		id, err := w.s.d.Jobs.SubmitAs(ctx, system(op.Org), op.App, r.Input, []string{"measurement"})
		if err != nil {
			return false, fmt.Errorf("submit the measurement job of baseline record %d: %w", r.Baseline, err)
		}
		if _, err := db.ExecContext(ctx, `WITH link AS (INSERT INTO measurement_jobs (operation_id, dataset_id, baseline_id, app_id, job_id)
				VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING)
			UPDATE jobs SET is_measurement = true WHERE app_id = $4 AND id = $5`, op.ID, op.Dataset, r.Baseline, op.App, id); err != nil {
			return false, err
		}
	}
	var c struct {
		Total    int `db:"total"`
		Finished int `db:"finished"`
	}
	if err := db.GetContext(ctx, &c, `SELECT count(*) AS total,
		count(*) FILTER (WHERE j.status IN ('COMPLETED', 'FAILED', 'CANCELED', 'EXPIRED')) AS finished
		FROM measurement_jobs m JOIN jobs j ON j.app_id = m.app_id AND j.id = m.job_id WHERE m.operation_id = $1`, op.ID); err != nil {
		return false, err
	}
	if _, err := db.ExecContext(ctx, `UPDATE measurer_operations SET progress = $2 WHERE id = $1`, op.ID,
		0.9*float64(c.Finished)/float64(max(c.Total, 1))); err != nil {
		return false, err
	}
	if c.Finished < c.Total {
		return false, nil
	}
	return true, w.score(ctx, op, cfg)
}

// measured is one job of an operation with its baseline record.
type measured struct {
	Job     int64            `db:"job_id"`
	Want    json.RawMessage  `db:"want"`
	Got     *json.RawMessage `db:"got"`
	Status  string           `db:"status"`
	Latency *float64         `db:"latency"`
	Credits float64          `db:"credits"`
	Score   *float64         `db:"score"`
}

func (w *Worker) jobsOf(ctx context.Context, where string, arg uuid.UUID, org uuid.UUID) ([]measured, error) {
	var out []measured
	err := w.s.d.DB.SelectContext(ctx, &out, `SELECT j.id AS job_id, r.response AS want, j.response AS got, j.status,
		  extract(epoch FROM j.completed_at - j.created_at)::float8 AS latency, j.score,
		  (SELECT coalesce(sum(u.amount), 0) FROM usage_records u WHERE u.organization_id = $2 AND u.job_id = j.id)::float8 AS credits
		FROM measurement_jobs m
		JOIN measurement_dataset_records r ON r.dataset_id = m.dataset_id AND r.baseline_id = m.baseline_id
		JOIN jobs j ON j.app_id = m.app_id AND j.id = m.job_id
		WHERE `+where+` ORDER BY j.id`, arg, org)
	return out, err
}

// perJob are the metrics of whole jobs rather than of a field's values: they are the same for every
// field, so they are recorded once, under the whole response {} (the default field of a target).
var perJob = map[string]bool{"latency_seconds": true, "cost_credits": true}

// score records every configured metric of every configured field over the operation's jobs, and the
// per-job metrics under {}.
func (w *Worker) score(ctx context.Context, op operation, cfg measurerconfig.Config) error {
	rows, err := w.jobsOf(ctx, `m.operation_id = $1`, op.ID, op.Org)
	if err != nil {
		return err
	}
	fields := fieldsOf(cfg)
	if !slices.Contains(fields, "{}") {
		fields = append(fields, "{}")
	}
	for _, field := range fields {
		path, err := filter.ParsePath(field)
		if err != nil {
			return fmt.Errorf("field %s: %w", field, err)
		}
		var pairs, timed []metrics.Pair
		for _, r := range rows {
			p := metrics.Pair{Want: pick(r.Want, path), Credits: r.Credits}
			if r.Got != nil && r.Status == "COMPLETED" {
				p.Got = pick(*r.Got, path)
			}
			pairs = append(pairs, p)
			if r.Latency != nil && r.Status == "COMPLETED" {
				p.LatencySeconds = *r.Latency
				timed = append(timed, p)
			}
		}
		for _, name := range cfg.Metrics {
			// A per-job metric goes under {} only; a field's metric under the configured fields only.
			if perJob[name] && field != "{}" || !perJob[name] && !configured(cfg, field) {
				continue
			}
			set := pairs
			if name == "latency_seconds" {
				set = timed
			}
			v, n, ok := metrics.Compute(name, set)
			if !ok {
				continue
			}
			if _, err := w.s.d.DB.ExecContext(ctx, `INSERT INTO measurements (organization_id, app_id, api_id, metric_name,
				field_name, dataset_id, parameter_set_id, value, sample_size)
				SELECT $1, $2, a.api_id, $3, $4, $5, $6, $7, $8 FROM apps a WHERE a.id = $2`,
				op.Org, op.App, name, field, op.Dataset, op.Parameters, v, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// configured says whether the field's values are measured: it is configured, or none is and it is {}.
func configured(cfg measurerconfig.Config, field string) bool {
	return slices.Contains(fieldsOf(cfg), field)
}

// fieldsOf are the configured fields, or the whole response.
func fieldsOf(cfg measurerconfig.Config) []string {
	if len(cfg.Fields) == 0 {
		return []string{"{}"}
	}
	return cfg.Fields
}

// pick is the value at path in a JSON document (nil when missing), found as the job filters find it.
func pick(raw json.RawMessage, path []string) any {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return filter.Lookup(v, path)
}
