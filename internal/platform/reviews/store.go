package reviews

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/flows"
)

const columns = `r.id, r.organization_id, r.flow_execution_id, r.target_task_name, r.target_task_execution_idx,
	r.source_task_name, r.source_task_execution_idx, r.status, r.instructions, r.review_result, coalesce(r.reviewed_output, 'null') AS reviewed_output,
	r.completed_at, r.completed_by, coalesce(r.task_metadata, 'null') AS task_metadata, r.required_approvals, r.approvals, r.timeout_at, r.on_timeout,
	r.holds_attempt, r.created_at, r.updated_at, r.modified_by, (x.status = 'deleted') AS execution_deleted,
	(x.job_id IS NOT NULL) AS for_job, x.flow_id, x.flow_version`

// reviewRow is one human_review_tasks row with what the routes need of its execution.
type reviewRow struct {
	ID               uuid.UUID       `db:"id"`
	Org              uuid.UUID       `db:"organization_id"`
	Execution        uuid.UUID       `db:"flow_execution_id"`
	Target           string          `db:"target_task_name"`
	TargetIdx        int             `db:"target_task_execution_idx"`
	Source           string          `db:"source_task_name"`
	SourceIdx        int             `db:"source_task_execution_idx"`
	Status           string          `db:"status"`
	Instructions     *string         `db:"instructions"`
	ReviewResult     *bool           `db:"review_result"`
	ReviewedOutput   json.RawMessage `db:"reviewed_output"`
	CompletedAt      *time.Time      `db:"completed_at"`
	CompletedBy      *uuid.UUID      `db:"completed_by"`
	Metadata         json.RawMessage `db:"task_metadata"`
	Required         int             `db:"required_approvals"`
	Approvals        int             `db:"approvals"`
	TimeoutAt        *time.Time      `db:"timeout_at"`
	OnTimeout        *string         `db:"on_timeout"`
	HoldsAttempt     bool            `db:"holds_attempt"`
	CreatedAt        time.Time       `db:"created_at"`
	UpdatedAt        time.Time       `db:"updated_at"`
	ModifiedBy       string          `db:"modified_by"`
	ExecutionDeleted bool            `db:"execution_deleted"`
	// ForJob says the execution runs a /v1 job, which the review's decision labels.
	ForJob bool `db:"for_job"`
	// Flow and Version are what the execution runs, on which a completion's edges are decided.
	Flow    uuid.UUID `db:"flow_id"`
	Version int       `db:"flow_version"`
}

func (r reviewRow) response() (platformapi.HumanReviewTaskResponse, error) {
	out := platformapi.HumanReviewTaskResponse{Id: r.ID, OrganizationId: r.Org, FlowExecutionId: r.Execution,
		TargetTaskName: r.Target, TargetTaskExecutionIdx: r.TargetIdx, SourceTaskName: r.Source,
		SourceTaskExecutionIdx: r.SourceIdx, Status: platformapi.HumanReviewTaskStatus(r.Status),
		Instructions: r.Instructions, ReviewResult: r.ReviewResult, CompletedAt: r.CompletedAt,
		CompletedBy: r.CompletedBy, RequiredApprovals: r.Required, Approvals: r.Approvals, TimeoutAt: r.TimeoutAt,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ModifiedBy: r.ModifiedBy}
	if r.OnTimeout != nil {
		v := platformapi.HumanReviewTaskResponseOnTimeout(*r.OnTimeout)
		out.OnTimeout = &v
	}
	for _, f := range []struct {
		raw json.RawMessage
		to  **map[string]any
	}{{r.ReviewedOutput, &out.ReviewedOutput}, {r.Metadata, &out.TaskMetadata}} {
		if len(f.raw) == 0 || string(f.raw) == "null" {
			continue
		}
		m := map[string]any{}
		if err := json.Unmarshal(f.raw, &m); err != nil {
			return out, err
		}
		*f.to = &m
	}
	return out, nil
}

var errNotFound = httpx.NotFound("human review task")

// readableCond is the condition, on review tasks r of executions x of flows f, that the caller may read
// the review: it is of the caller's organization, and the caller may see its execution (the flows
// rule) or is assigned to it. userParam carries the caller's user id.
func readableCond(p *auth.Principal, orgParam, userParam string) string {
	return `r.organization_id = ` + orgParam + ` AND (` + flows.SeenBy(p, userParam) + `
		OR EXISTS (SELECT 1 FROM human_review_assignments a WHERE a.human_review_task_id = r.id AND a.user_id = ` + userParam + `))`
}

// readable reads a review the caller may read (locked when lock is set); anything else, another
// organization's included, is the same 404 as a missing id.
func readable(ctx context.Context, db dbx.DBTX, p *auth.Principal, id uuid.UUID, lock bool) (reviewRow, error) {
	var r reviewRow
	err := db.GetContext(ctx, &r, readableSQL(p, "", lock), id, p.OrganizationID, p.UserID)
	if errors.Is(err, sql.ErrNoRows) {
		return r, errNotFound
	}
	return r, err
}

// readableSQL is readable's statement (review $1, organization $2, user $3), with more columns after
// the review's (extra, from ", ").
func readableSQL(p *auth.Principal, extra string, lock bool) string {
	q := `SELECT ` + columns + extra + ` FROM human_review_tasks r JOIN flow_executions x ON x.id = r.flow_execution_id
		JOIN flows f ON f.id = x.flow_id WHERE r.id = $1 AND ` + readableCond(p, "$2", "$3")
	if lock {
		q += ` FOR UPDATE OF r`
	}
	return q
}

// byID reads a review without any caller, for the engine's side (timeouts), locked.
func byID(ctx context.Context, db dbx.DBTX, id uuid.UUID) (reviewRow, error) {
	var r reviewRow
	err := db.GetContext(ctx, &r, `SELECT `+columns+` FROM human_review_tasks r
		JOIN flow_executions x ON x.id = r.flow_execution_id WHERE r.id = $1 FOR UPDATE OF r`, id)
	return r, err
}

// assignmentRow is one human_review_assignments row.
type assignmentRow struct {
	ID        uuid.UUID  `db:"id"`
	Org       uuid.UUID  `db:"organization_id"`
	Review    uuid.UUID  `db:"human_review_task_id"`
	User      uuid.UUID  `db:"user_id"`
	Status    string     `db:"status"`
	StartedAt *time.Time `db:"started_at"`
	CreatedAt time.Time  `db:"created_at"`
	UpdatedAt time.Time  `db:"updated_at"`
	Modified  string     `db:"modified_by"`
}

const assignmentColumns = `a.id, a.organization_id, a.human_review_task_id, a.user_id, a.status, a.started_at,
	a.created_at, a.updated_at, a.modified_by`

func (a assignmentRow) response() platformapi.HumanReviewTaskAssignmentResponse {
	return platformapi.HumanReviewTaskAssignmentResponse{Id: a.ID, OrganizationId: a.Org, HumanReviewTaskId: a.Review,
		UserId: a.User, Status: platformapi.HumanReviewAssignmentStatus(a.Status), StartedAt: a.StartedAt,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt, ModifiedBy: a.Modified}
}

// mine reads, locked, the caller's assignment on a review; ok is false when the caller has none.
func mine(ctx context.Context, db dbx.DBTX, review, user uuid.UUID) (assignmentRow, bool, error) {
	var a assignmentRow
	err := db.GetContext(ctx, &a, `SELECT `+assignmentColumns+` FROM human_review_assignments a
		WHERE a.human_review_task_id = $1 AND a.user_id = $2 FOR UPDATE`, review, user)
	if errors.Is(err, sql.ErrNoRows) {
		return a, false, nil
	}
	return a, err == nil, err
}
