package apps

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/counts"
)

// apiNameColumn selects the current name of an app's flow: the display name of the flow's latest
// version, so a renamed flow shows its new name on every app at once.
const apiNameColumn = `(SELECT v.display_name FROM flows f
	  JOIN flow_versions v ON v.flow_id = f.id AND v.version = f.latest_version
	 WHERE f.id = a.api_id) AS api_name`

// row is an app with the name of its flow.
type row struct {
	access.App
	APIName *string `db:"api_name"`
}

// ToResponse renders an app as the contract's App, with its settings over the defaults. apiName is
// the flow's current name (APIName loads it) or nil; job_stats and super_tasks are left out.
func ToResponse(a access.App, apiName *string) v1api.App {
	return v1api.App{
		Id:             a.ID,
		OrganizationId: a.OrganizationID,
		Name:           a.Name,
		Description:    a.Description,
		ApiId:          a.APIID,
		ApiName:        apiName,
		Status:         v1api.AppStatus(a.Status),
		JobTtlSeconds:  a.JobTTLSeconds,
		Settings:       SettingsResponse(a.ParsedSettings()),
		OwnerId:        a.OwnerID,
		CreatedAt:      a.CreatedAt,
		UpdatedAt:      a.UpdatedAt,
	}
}

// SettingsResponse renders settings as the contract's AppSettings, every field present.
func SettingsResponse(s access.Settings) v1api.AppSettings {
	score := nullable.NewNullNullable[float32]()
	if s.AutoCompleteScore != nil {
		score = nullable.NewNullableWithValue(float32(*s.AutoCompleteScore))
	}
	limit := nullable.NewNullNullable[int]()
	if s.MaxRunningJobs != nil {
		limit = nullable.NewNullableWithValue(*s.MaxRunningJobs)
	}
	rate := float32(s.ReviewRate)
	return v1api.AppSettings{
		MaxRunningJobs:      limit,
		DefaultPriority:     &s.DefaultPriority,
		LabelingEnabled:     &s.LabelingEnabled,
		LabelingLockMinutes: &s.LabelingLockMinutes,
		ReviewRate:          &rate,
		AutoCompleteScore:   score,
	}
}

// APIName returns the current name of an app's flow, or nil for an app without one.
func APIName(ctx context.Context, db dbx.DBTX, a access.App) (*string, error) {
	if a.APIID == nil {
		return nil, nil
	}
	var name *string
	err := db.GetContext(ctx, &name, `SELECT `+apiNameColumn+` FROM apps a WHERE a.id = $1`, a.ID)
	return name, err
}

// load renders one app with its flow's name, whatever the caller's rights: callers resolve access first.
func load(ctx context.Context, db dbx.DBTX, id uuid.UUID) (v1api.App, error) {
	var r row
	if err := db.GetContext(ctx, &r, `SELECT `+access.AppColumns+`, `+apiNameColumn+` FROM apps a WHERE a.id = $1`, id); err != nil {
		return v1api.App{}, err
	}
	return ToResponse(r.App, r.APIName), nil
}

// jobStats counts an app's jobs per status from the trigger-maintained counters, which are exact in
// every transaction, so the answer is never a cached one.
func jobStats(ctx context.Context, db dbx.DBTX, app uuid.UUID) (*v1api.JobsCountPerState, error) {
	n, err := counts.PerStatus(ctx, db, app)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, c := range n {
		total += c
	}
	cached, now := false, time.Now().UTC()
	return &v1api.JobsCountPerState{
		Total:      total,
		Scheduled:  n["SCHEDULED"],
		InProgress: n["IN_PROGRESS"],
		Suspended:  n["SUSPENDED"],
		Pending:    n["PENDING"],
		Failed:     n["FAILED"],
		Canceled:   n["CANCELED"],
		Expired:    n["EXPIRED"],
		Completed:  n["COMPLETED"],
		Cached:     &cached,
		CountedAt:  &now,
	}, nil
}
