package measurerops

import (
	"context"
	"sort"

	"github.com/loopwork/loopwork/internal/v1/filter"
	"github.com/loopwork/loopwork/internal/v1/measurerconfig"
)

// targetPrecision is the share of correct values a calibrated threshold promises above it.
const targetPrecision = 0.9

// calibrate derives, per configured field, the lowest confidence at or above which the dataset's
// measured jobs were correct at least targetPrecision of the time (null when no confidence does).
func (w *Worker) calibrate(ctx context.Context, op operation, cfg measurerconfig.Config) error {
	rows, err := w.jobsOf(ctx, `m.dataset_id = $1`, *op.Dataset, op.Org)
	if err != nil {
		return err
	}
	for _, field := range fieldsOf(cfg) {
		path, err := filter.ParsePath(field)
		if err != nil {
			return err
		}
		var scored []entry
		for _, r := range rows {
			if e, ok := judge(r, path); ok && e.correct != nil && r.Score != nil {
				scored = append(scored, e)
			}
		}
		t := threshold(scored)
		if _, err := w.s.d.DB.ExecContext(ctx, `INSERT INTO measurer_thresholds (app_id, dataset_id, field_name, threshold)
			VALUES ($1, $2, $3, $4) ON CONFLICT (app_id, dataset_id, field_name) DO UPDATE
			SET threshold = EXCLUDED.threshold, updated_at = now()`, op.App, *op.Dataset, field, t); err != nil {
			return err
		}
	}
	return nil
}

// entry is one measured job's confidence for a field and whether the field was right.
type entry struct {
	job        int64
	confidence float64
	correct    *bool
}

// judge is a job's entry for the field: its confidence (the job's score) and whether its value equals
// the baseline's (nil when the baseline has no value for the field).
func judge(r measured, path []string) (entry, bool) {
	if r.Score == nil {
		return entry{}, false
	}
	e := entry{job: r.Job, confidence: *r.Score}
	want := pick(r.Want, path)
	if want != nil {
		var got any
		if r.Got != nil && r.Status == "COMPLETED" {
			got = pick(*r.Got, path)
		}
		ok := equal(want, got)
		e.correct = &ok
	}
	return e, true
}

// threshold walks the entries from the most confident down and keeps the lowest confidence at which
// the entries at or above it are still correct at least targetPrecision of the time.
func threshold(es []entry) *float64 {
	sort.Slice(es, func(i, j int) bool { return es[i].confidence > es[j].confidence })
	var best *float64
	right := 0
	for i, e := range es {
		if *e.correct {
			right++
		}
		// Ties are decided together: a threshold lets in every entry of its confidence.
		if i+1 < len(es) && es[i+1].confidence == e.confidence {
			continue
		}
		if float64(right)/float64(i+1) >= targetPrecision {
			c := e.confidence
			best = &c
		}
	}
	return best
}
