package measurerops

import (
	"context"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/filter"
	"github.com/loopwork/loopwork/internal/v1/measurerconfig"
)

// GetMeasurerConfidences answers, per configured field, the confidences of the dataset's most recent
// measured jobs, whether each was right, their mean and the calibrated threshold.
func (s *Service) GetMeasurerConfidences(ctx context.Context, req v1api.GetMeasurerConfidencesRequestObject) (v1api.GetMeasurerConfidencesResponseObject, error) {
	g, _, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler)
	if err != nil {
		return nil, err
	}
	ds := req.Params.DatasetId
	var ok bool
	if err := s.d.DB.GetContext(ctx, &ok, `SELECT EXISTS (SELECT 1 FROM measurement_datasets WHERE id = $1 AND app_id = $2)`, ds, g.ID); err != nil {
		return nil, err
	}
	if !ok {
		return nil, httpx.NotFound("dataset")
	}
	limit := 100
	if req.Params.MaxEntries != nil {
		limit = *req.Params.MaxEntries
	}
	cfg, err := measurerconfig.Load(ctx, s.d.DB, g.ID)
	if err != nil {
		return nil, err
	}
	w := &Worker{s: s}
	rows, err := w.jobsOf(ctx, `m.dataset_id = $1`, ds, g.OrganizationID)
	if err != nil {
		return nil, err
	}
	out := v1api.GetMeasurerConfidences200JSONResponse{AppId: g.ID, DatasetId: ds, Fields: []v1api.FieldConfidences{}}
	for _, field := range fieldsOf(cfg) {
		path, err := filter.ParsePath(field)
		if err != nil {
			return nil, err
		}
		fc := v1api.FieldConfidences{FieldName: field, Entries: []v1api.ConfidenceEntry{}}
		var sum float64
		n := 0
		// rows come in job id order; the most recent are the last.
		for i := len(rows) - 1; i >= 0; i-- {
			e, ok := judge(rows[i], path)
			if !ok {
				continue
			}
			sum += e.confidence
			n++
			if len(fc.Entries) < limit {
				fc.Entries = append(fc.Entries, v1api.ConfidenceEntry{JobId: e.job, Confidence: float32(e.confidence), Correct: e.correct})
			}
		}
		if n > 0 {
			m := float32(sum / float64(n))
			fc.MeanConfidence = &m
		}
		var t *float64
		if err := s.d.DB.GetContext(ctx, &t, `SELECT threshold FROM measurer_thresholds WHERE app_id = $1 AND dataset_id = $2
			AND field_name = $3`, g.ID, ds, field); err == nil && t != nil {
			f := float32(*t)
			fc.Threshold = &f
		}
		out.Fields = append(out.Fields, fc)
	}
	return out, nil
}
