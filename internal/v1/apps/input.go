package apps

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// mergeSettings applies the fields present in a request to the current settings; fields left out keep
// their values, and auto_complete_score or max_running_jobs sent as null is cleared.
func mergeSettings(cur access.Settings, in *v1api.AppSettings) access.Settings {
	if in == nil {
		return cur
	}
	if in.DefaultPriority != nil {
		cur.DefaultPriority = *in.DefaultPriority
	}
	if in.LabelingEnabled != nil {
		cur.LabelingEnabled = *in.LabelingEnabled
	}
	if in.LabelingLockMinutes != nil {
		cur.LabelingLockMinutes = *in.LabelingLockMinutes
	}
	if in.ReviewRate != nil {
		cur.ReviewRate = float64(*in.ReviewRate)
	}
	if in.AutoCompleteScore.IsSpecified() {
		if in.AutoCompleteScore.IsNull() {
			cur.AutoCompleteScore = nil
		} else {
			v := float64(in.AutoCompleteScore.MustGet())
			cur.AutoCompleteScore = &v
		}
	}
	if in.MaxRunningJobs.IsSpecified() {
		if in.MaxRunningJobs.IsNull() {
			cur.MaxRunningJobs = nil
		} else {
			v := in.MaxRunningJobs.MustGet()
			cur.MaxRunningJobs = &v
		}
	}
	return cur
}

// settingsJSON is how settings are stored: every field explicit, so what was chosen is on record.
func settingsJSON(s access.Settings) string {
	b, _ := json.Marshal(s) // a struct of numbers and booleans always marshals
	return string(b)
}

// appName checks a name sent in a body: not blank once surrounding spaces are removed.
func appName(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n == "" {
		return "", httpx.InvalidV1([]any{"body", "name"}, "value_error", "name must not be blank")
	}
	return n, nil
}

// checkAPI answers 400 naming api_id unless id is a flow the organization may bind an app to: one of
// its own or a public one of another organization, not deleted, whose latest version is valid (the
// engine only ever runs valid versions).
func checkAPI(ctx context.Context, db dbx.DBTX, org, id uuid.UUID) error {
	var valid sql.NullBool
	err := db.GetContext(ctx, &valid, `SELECT v.valid FROM flows f
		JOIN flow_versions v ON v.flow_id = f.id AND v.version = f.latest_version
		WHERE f.id = $1 AND f.deleted_at IS NULL AND (f.organization_id = $2 OR f.visibility = 'public')`, id, org)
	if errors.Is(err, sql.ErrNoRows) {
		return httpx.InvalidV1([]any{"body", "api_id"}, "value_error",
			"api_id names no flow this organization may use: it must be one of its flows or a public flow")
	}
	if err != nil {
		return err
	}
	if !valid.Bool {
		return httpx.InvalidV1([]any{"body", "api_id"}, "value_error",
			"the flow named by api_id has validation errors in its latest version; fix them before binding an app to it")
	}
	return nil
}

// writeError maps a failed app insert or update: a taken name is the 400 the contract names.
func writeError(err error, name string) error {
	var ce *dbx.ConstraintError
	if errors.As(dbx.Translate(err), &ce) && ce.Constraint == "apps_org_name_key" {
		return httpx.InvalidV1([]any{"body", "name"}, "value_error", "an app named "+quote(name)+" exists already in the organization")
	}
	return err
}

func quote(s string) string { return `"` + s + `"` }
