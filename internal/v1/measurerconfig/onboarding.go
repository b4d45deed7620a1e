package measurerconfig

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/httpx"
)

// CheckOnboarding decides, inside the submitting transaction, whether a measurement job may be
// submitted to the app with code. It answers 409 while the app takes no measurement jobs — its owner
// has not enabled measuring and accepted them, no metric is selected, or performance is being
// calculated — and 400 when code is not the current onboarding code. The configuration row stays
// share-locked until the transaction ends, so the round cannot change under the job.
func CheckOnboarding(ctx context.Context, tx *sqlx.Tx, app uuid.UUID, code int64) error {
	var c Config
	err := tx.GetContext(ctx, &c, `SELECT `+columns+` FROM measurer_configurations WHERE app_id = $1 FOR SHARE`, app)
	if errors.Is(err, sql.ErrNoRows) {
		c, err = Defaults(app), nil
	}
	if err != nil {
		return err
	}
	switch {
	case !c.measuring():
		return httpx.Conflict("the app takes no measurement jobs: its owner must enable measuring and accept measurement jobs")
	case len(c.Metrics) == 0:
		return httpx.Conflict("the app takes no measurement jobs: no metrics are selected")
	case c.State == StateCalculating:
		return httpx.Conflict("the app takes no measurement jobs while its performance is being calculated")
	case c.OnboardingCode == nil || *c.OnboardingCode != code:
		return httpx.InvalidV1([]any{"query", "onboarding"}, "value_error", "invalid onboarding code")
	}
	return nil
}

// CopyConfiguration gives the app to the configuration of the app from (when it has one), for a clone:
// settings travel, measurements do not, so the copy starts IDLE, and in its own measurement round.
func CopyConfiguration(ctx context.Context, tx *sqlx.Tx, from, to, org uuid.UUID, actor string) error {
	code, err := newCode()
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO measurer_configurations (app_id, organization_id, enabled, metrics, fields,
		  baseline_types, accept_measurement_jobs, onboarding_code, measure_interval_hours, modified_by)
		SELECT $2, $3, enabled, metrics, fields, baseline_types, accept_measurement_jobs,
		       CASE WHEN enabled AND accept_measurement_jobs THEN $4::bigint END, measure_interval_hours, $5
		FROM measurer_configurations WHERE app_id = $1`, from, to, org, code, actor)
	return err
}
