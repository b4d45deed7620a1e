package jobs

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// errJobNotFound is the one answer for a job that is missing, of another app or of another
// organization.
func errJobNotFound() error { return httpx.NotFound("job") }

// getRow loads one job of the app.
func getRow(ctx context.Context, db dbx.DBTX, g *access.Grant, id int64) (Row, error) {
	var r Row
	err := db.QueryRowxContext(ctx, `SELECT `+Columns+` FROM jobs j WHERE j.id = $1 AND j.app_id = $2 AND j.organization_id = $3`,
		id, g.App.ID, g.App.OrganizationID).Scan(r.dest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return Row{}, errJobNotFound()
	}
	if err != nil {
		return Row{}, err
	}
	return r, withUsernames(ctx, db, &r)
}

// feedbackOf lists a job's feedback messages, oldest first.
func feedbackOf(ctx context.Context, db dbx.DBTX, jobID int64) ([]Feedback, error) {
	var out []Feedback
	err := db.SelectContext(ctx, &out, `SELECT `+FeedbackColumns+` FROM job_feedback f WHERE f.job_id = $1 ORDER BY f.created_at, f.id`, jobID)
	return out, err
}

// fullJob renders one job of the app with its feedback messages.
func fullJob(ctx context.Context, db dbx.DBTX, g *access.Grant, id int64) (v1api.Job, error) {
	r, err := getRow(ctx, db, g, id)
	if err != nil {
		return v1api.Job{}, err
	}
	fb, err := feedbackOf(ctx, db, id)
	if err != nil {
		return v1api.Job{}, err
	}
	return WithFeedback(ToResponse(r), fb), nil
}

// lockedJob is the state a change of one job decides on, read under the row lock.
type lockedJob struct {
	ID              int64      `db:"id"`
	AppID           uuid.UUID  `db:"app_id"`
	Status          string     `db:"status"`
	ProcessingState string     `db:"processing_state"`
	Reviewed        *string    `db:"reviewed"`
	LabeledBy       *uuid.UUID `db:"labeled_by"`
	AssignedTo      *uuid.UUID `db:"assigned_to"`
	// Held is true while assigned_to's lock runs.
	Held     bool    `db:"held"`
	Response *[]byte `db:"response"`
	// Execution is the job's flow execution, if it has one.
	Execution *uuid.UUID `db:"flow_execution_id"`
}

// lockJob reads a job of the app and locks its row until the transaction ends.
func lockJob(ctx context.Context, db dbx.DBTX, g *access.Grant, id int64) (lockedJob, error) {
	return readJob(ctx, db, g, id, ` FOR UPDATE`)
}

// readJob reads a job of the app, with lock appended to the query.
func readJob(ctx context.Context, db dbx.DBTX, g *access.Grant, id int64, lock string) (lockedJob, error) {
	var j lockedJob
	err := db.GetContext(ctx, &j, `SELECT id, app_id, status, processing_state, reviewed, labeled_by, assigned_to,
		       coalesce(assigned_to IS NOT NULL AND lock_expires_at > now(), false) AS held, response, flow_execution_id
		FROM jobs WHERE id = $1 AND app_id = $2 AND organization_id = $3`+lock, id, g.App.ID, g.App.OrganizationID)
	if errors.Is(err, sql.ErrNoRows) {
		return lockedJob{}, errJobNotFound()
	}
	return j, err
}
