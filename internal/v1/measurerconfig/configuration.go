package measurerconfig

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/filter"
)

// States of a configuration (MeasurerConfiguration.state).
const (
	StateIdle        = "IDLE"
	StateCalculating = "CALCULATING"
	StateReady       = "READY"
)

// Config is an app's measurer configuration as stored.
type Config struct {
	AppID          uuid.UUID      `db:"app_id"`
	Enabled        bool           `db:"enabled"`
	Metrics        pq.StringArray `db:"metrics"`
	Fields         pq.StringArray `db:"fields"`
	BaselineTypes  pq.StringArray `db:"baseline_types"`
	Accept         bool           `db:"accept_measurement_jobs"`
	OnboardingCode *int64         `db:"onboarding_code"`
	IntervalHours  *int           `db:"measure_interval_hours"`
	State          string         `db:"state"`
	// UpdatedAt is nil for an app never configured.
	UpdatedAt *time.Time `db:"updated_at"`
}

const columns = `app_id, enabled, metrics, fields, baseline_types, accept_measurement_jobs, onboarding_code,
	measure_interval_hours, state, updated_at`

// Defaults is the configuration of an app never configured: disabled, no metrics, the whole response
// measured, datasets built from OWNER and GOLD_WORKFLOW baseline data, measurement jobs not accepted.
func Defaults(app uuid.UUID) Config {
	return Config{AppID: app, Metrics: pq.StringArray{}, Fields: pq.StringArray{},
		BaselineTypes: pq.StringArray{"OWNER", "GOLD_WORKFLOW"}, State: StateIdle}
}

// Load reads the app's configuration (its defaults when it has none).
func Load(ctx context.Context, db dbx.DBTX, app uuid.UUID) (Config, error) {
	var c Config
	err := db.GetContext(ctx, &c, `SELECT `+columns+` FROM measurer_configurations WHERE app_id = $1`, app)
	if errors.Is(err, sql.ErrNoRows) {
		return Defaults(app), nil
	}
	return c, err
}

// measuring reports whether measurement jobs are taken: the app is measured and accepts them.
func (c Config) measuring() bool { return c.Enabled && c.Accept }

// Response renders the configuration.
func (c Config) Response() v1api.MeasurerConfiguration {
	out := v1api.MeasurerConfiguration{AppId: c.AppID, Enabled: c.Enabled, Fields: nonNil(c.Fields),
		AcceptMeasurementJobs: c.Accept, OnboardingCode: c.OnboardingCode, MeasureIntervalHours: c.IntervalHours,
		State: v1api.MeasurerConfigurationState(c.State), UpdatedAt: c.UpdatedAt,
		Metrics: make([]v1api.MetricName, len(c.Metrics)), BaselineTypes: make([]v1api.BaselineDataType, len(c.BaselineTypes))}
	for i, m := range c.Metrics {
		out.Metrics[i] = v1api.MetricName(m)
	}
	for i, t := range c.BaselineTypes {
		out.BaselineTypes[i] = v1api.BaselineDataType(t)
	}
	return out
}

// GetMeasurerConfiguration answers the app's configuration to any member.
func (s *Service) GetMeasurerConfiguration(ctx context.Context, req v1api.GetMeasurerConfigurationRequestObject) (v1api.GetMeasurerConfigurationResponseObject, error) {
	g, err := s.d.Grants.Resolve(ctx, auth.MustFromContext(ctx), req.AppId)
	if err != nil {
		return nil, err
	}
	c, err := Load(ctx, s.d.DB, g.App.ID)
	if err != nil {
		return nil, err
	}
	return v1api.GetMeasurerConfiguration200JSONResponse(c.Response()), nil
}

// UpdateMeasurerConfiguration changes the fields present, under the row's lock so that a measurer
// operation starting meanwhile is seen. Turning measurement jobs on (enabled and accepting) issues a
// new onboarding code, the start of a measurement round; turning them off withdraws it.
func (s *Service) UpdateMeasurerConfiguration(ctx context.Context, req v1api.UpdateMeasurerConfigurationRequestObject) (v1api.UpdateMeasurerConfigurationResponseObject, error) {
	g, p, err := s.d.Grants.Require(ctx, req.AppId, access.Manager)
	if err != nil {
		return nil, err
	}
	b := req.Body
	if b.Fields != nil {
		for i, f := range *b.Fields {
			if _, err := filter.ParsePath(f); err != nil {
				return nil, httpx.InvalidV1([]any{"body", "fields", i}, "value_error", "path "+err.Error())
			}
		}
	}
	var out Config
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		c, err := lockConfig(ctx, tx, g)
		if err != nil {
			return err
		}
		if c.State == StateCalculating {
			return httpx.Conflict("performance is being calculated; change the configuration when state is no longer CALCULATING")
		}
		if err := c.apply(b); err != nil {
			return err
		}
		return tx.GetContext(ctx, &out, `UPDATE measurer_configurations SET enabled = $2, metrics = $3, fields = $4,
			  baseline_types = $5, accept_measurement_jobs = $6, onboarding_code = $7, measure_interval_hours = $8,
			  updated_at = now(), modified_by = $9
			WHERE app_id = $1 RETURNING `+columns,
			c.AppID, c.Enabled, c.Metrics, c.Fields, c.BaselineTypes, c.Accept, c.OnboardingCode, c.IntervalHours, p.Actor())
	})
	if err != nil {
		return nil, err
	}
	if req.Params.Prefer != nil && *req.Params.Prefer == "return=minimal" {
		return v1api.UpdateMeasurerConfiguration204Response{}, nil
	}
	return v1api.UpdateMeasurerConfiguration200JSONResponse(out.Response()), nil
}

// apply changes the fields present in an update. Turning measurement jobs on starts a new round (a new
// onboarding code); turning them off withdraws the code.
func (c *Config) apply(b *v1api.MeasurerConfigurationUpdate) error {
	was := c.measuring()
	if b.Enabled != nil {
		c.Enabled = *b.Enabled
	}
	if b.AcceptMeasurementJobs != nil {
		c.Accept = *b.AcceptMeasurementJobs
	}
	if b.Metrics != nil {
		c.Metrics = texts(*b.Metrics)
	}
	if b.Fields != nil {
		c.Fields = pq.StringArray(*b.Fields)
	}
	if b.BaselineTypes != nil {
		c.BaselineTypes = texts(*b.BaselineTypes)
	}
	if b.MeasureIntervalHours.IsSpecified() {
		c.IntervalHours = nil
		if h, err := b.MeasureIntervalHours.Get(); err == nil {
			c.IntervalHours = &h
		}
	}
	switch {
	case !c.measuring():
		c.OnboardingCode = nil
	case !was || c.OnboardingCode == nil:
		code, err := newCode()
		if err != nil {
			return err
		}
		c.OnboardingCode = &code
	}
	return nil
}

// texts converts enum values to the text[] they are stored as.
func texts[S ~string](in []S) pq.StringArray {
	out := make(pq.StringArray, len(in))
	for i, v := range in {
		out[i] = string(v)
	}
	return out
}

// lockConfig reads the app's configuration under its row lock, creating the row with the defaults the
// first time.
func lockConfig(ctx context.Context, tx *sqlx.Tx, g *access.Grant) (Config, error) {
	if _, err := tx.ExecContext(ctx, `INSERT INTO measurer_configurations (app_id, organization_id) VALUES ($1, $2)
		ON CONFLICT (app_id) DO NOTHING`, g.App.ID, g.App.OrganizationID); err != nil {
		return Config{}, err
	}
	var c Config
	err := tx.GetContext(ctx, &c, `SELECT `+columns+` FROM measurer_configurations WHERE app_id = $1 FOR UPDATE`, g.App.ID)
	return c, err
}

// maxCode is the largest onboarding code, 2^53−1: clients send the code back, and JavaScript
// numbers represent integers exactly only up to there.
const maxCode = 1<<53 - 1

// newCode draws an onboarding code: a random integer from 1 to maxCode, so that codes cannot be
// guessed from one another.
func newCode() (int64, error) {
	for {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return 0, fmt.Errorf("onboarding code: %w", err)
		}
		if code := int64(binary.BigEndian.Uint64(b[:]) & maxCode); code != 0 {
			return code, nil
		}
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
