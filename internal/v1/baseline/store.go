package baseline

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
)

type row struct {
	ID          int64     `db:"id"`
	API         uuid.UUID `db:"api_id"`
	Type        string    `db:"type"`
	Input       []byte    `db:"input"`
	Response    []byte    `db:"response"`
	Label       *string   `db:"label"`
	SourceJobID *int64    `db:"source_job_id"`
	CreatedBy   *string   `db:"created_by"`
	CreatedAt   time.Time `db:"created_at"`
	UpdatedAt   time.Time `db:"updated_at"`
}

const columns = `b.id, b.api_id, b.type, b.input, b.response, b.label, b.source_job_id, b.created_by, b.created_at, b.updated_at`

func (r row) response(withLabel bool) v1api.BaselineData {
	out := v1api.BaselineData{Id: r.ID, ApiId: r.API, Type: v1api.BaselineDataType(r.Type), SourceJobId: r.SourceJobID,
		CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	_ = json.Unmarshal(r.Input, &out.Input)
	_ = json.Unmarshal(r.Response, &out.Response)
	if out.Input == nil {
		out.Input = map[string]any{}
	}
	if out.Response == nil {
		out.Response = map[string]any{}
	}
	if withLabel {
		out.Label = r.Label
	}
	return out
}
