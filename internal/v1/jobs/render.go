package jobs

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/dbx"
)

// Row is a job as Columns selects it; withUsernames makes it ready for ToResponse.
type Row struct {
	ID              int64          `db:"id"`
	AppID           uuid.UUID      `db:"app_id"`
	Status          string         `db:"status"`
	ProcessingState string         `db:"processing_state"`
	Input           []byte         `db:"input"`
	Response        *[]byte        `db:"response"`
	Metadata        []byte         `db:"metadata"`
	Tags            pq.StringArray `db:"tags"`
	BatchID         *string        `db:"batch_id"`
	Priority        int            `db:"priority"`
	Score           *float64       `db:"score"`
	TrustScore      *float64       `db:"trust_score"`
	Correct         *bool          `db:"correct"`
	Reviewed        *string        `db:"reviewed"`
	FirstIncorrect  bool           `db:"first_incorrect"`
	Edited          bool           `db:"edited"`
	Relabeled       bool           `db:"relabeled"`
	FeedbackTags    pq.StringArray `db:"feedback_tags"`
	LabeledByID     *uuid.UUID     `db:"labeled_by"`
	LabeledAt       *time.Time     `db:"labeled_at"`
	AssignedToID    *uuid.UUID     `db:"assigned_to"`
	Held            bool           `db:"held"`
	// LabeledBy and AssignedTo are the usernames withUsernames finds; AssignedTo only while Held.
	LabeledBy       *string    `db:"-"`
	AssignedTo      *string    `db:"-"`
	Error           *string    `db:"error"`
	CreatedAt       time.Time  `db:"created_at"`
	UpdatedAt       time.Time  `db:"updated_at"`
	CompletedAt     *time.Time `db:"completed_at"`
	ExpiresAt       *time.Time `db:"expires_at"`
	FlowExecutionID *uuid.UUID `db:"flow_execution_id"`
}

// Columns selects a Row from `jobs j`. A worker holds a job only while its lock runs, so a lapsed
// lock shows no assignee. Usernames are not joined in: the subqueries doubled what PostgreSQL spent
// on a page of jobs (pgbench, the list query alone: 4,491 tx/s with them, 7,307 without), and most
// pages need none or a few, found in one lookup.
const Columns = `j.id, j.app_id, j.status, j.processing_state, j.input, j.response, j.metadata, j.tags, j.batch_id,
	j.priority, j.score, j.trust_score, j.correct, j.reviewed, j.first_incorrect, j.edited, j.relabeled, j.feedback_tags,
	j.labeled_by, j.labeled_at, j.assigned_to, coalesce(j.lock_expires_at > now(), false) AS held,
	j.error, j.created_at, j.updated_at, j.completed_at, j.expires_at, j.flow_execution_id`

// dest are the scan destinations of a Row in the order of Columns. Pages of jobs are scanned through
// them rather than by sqlx's reflection, which cost 6% of a job list's CPU.
func (r *Row) dest() []any {
	return []any{&r.ID, &r.AppID, &r.Status, &r.ProcessingState, &r.Input, &r.Response, &r.Metadata, &r.Tags, &r.BatchID,
		&r.Priority, &r.Score, &r.TrustScore, &r.Correct, &r.Reviewed, &r.FirstIncorrect, &r.Edited, &r.Relabeled, &r.FeedbackTags,
		&r.LabeledByID, &r.LabeledAt, &r.AssignedToID, &r.Held,
		&r.Error, &r.CreatedAt, &r.UpdatedAt, &r.CompletedAt, &r.ExpiresAt, &r.FlowExecutionID}
}

// selectRows runs a query selecting Columns and scans its rows.
func selectRows(ctx context.Context, db dbx.DBTX, q string, args ...any) ([]Row, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		out = append(out, Row{})
		if err := rows.Scan(out[len(out)-1].dest()...); err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
}

// withUsernames fills in the usernames (e-mail addresses) of the rows' labelers and holders, with one
// query when any row has one.
func withUsernames(ctx context.Context, db dbx.DBTX, rows ...*Row) error {
	var ids []uuid.UUID
	for _, r := range rows {
		if r.LabeledByID != nil {
			ids = append(ids, *r.LabeledByID)
		}
		if r.AssignedToID != nil && r.Held {
			ids = append(ids, *r.AssignedToID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var found []struct {
		ID    uuid.UUID `db:"id"`
		Email string    `db:"email"`
	}
	if err := db.SelectContext(ctx, &found, `SELECT id, email::text AS email FROM users WHERE id = ANY($1)`, pq.Array(ids)); err != nil {
		return err
	}
	names := make(map[uuid.UUID]*string, len(found))
	for i := range found {
		names[found[i].ID] = &found[i].Email
	}
	for _, r := range rows {
		if r.LabeledByID != nil {
			r.LabeledBy = names[*r.LabeledByID]
		}
		if r.AssignedToID != nil && r.Held {
			r.AssignedTo = names[*r.AssignedToID]
		}
	}
	return nil
}

// ToResponse renders a job. Its feedback messages are left out: single-job answers add them with
// WithFeedback, lists do without them.
func ToResponse(r Row) v1api.Job {
	reviewed := v1api.ReviewVerdict("NOT_REVIEWED")
	if r.Reviewed != nil {
		reviewed = v1api.ReviewVerdict(*r.Reviewed)
	}
	j := v1api.Job{
		Id:              r.ID,
		AppId:           r.AppID,
		Status:          v1api.JobStatus(r.Status),
		ProcessingState: v1api.ProcessingState(r.ProcessingState),
		Input:           document(r.Input),
		Metadata:        document(r.Metadata),
		Tags:            nonNil(r.Tags),
		BatchId:         r.BatchID,
		Priority:        &r.Priority,
		Score:           float32Ptr(r.Score),
		TrustScore:      float32Ptr(r.TrustScore),
		Correct:         r.Correct,
		Reviewed:        &reviewed,
		FirstIncorrect:  &r.FirstIncorrect,
		Edited:          &r.Edited,
		Relabeled:       &r.Relabeled,
		FeedbackTags:    new(nonNil(r.FeedbackTags)),
		LabeledBy:       r.LabeledBy,
		LabeledAt:       r.LabeledAt,
		AssignedTo:      r.AssignedTo,
		Error:           r.Error,
		CreatedAt:       r.CreatedAt,
		UpdatedAt:       r.UpdatedAt,
		CompletedAt:     r.CompletedAt,
		ExpiresAt:       r.ExpiresAt,
		FlowExecutionId: r.FlowExecutionID,
	}
	if r.Response != nil {
		resp := document(*r.Response)
		j.Response = &resp
	}
	return j
}

// WithFeedback adds the job's feedback messages, oldest first.
func WithFeedback(j v1api.Job, messages []Feedback) v1api.Job {
	out := make([]v1api.FeedbackMessage, len(messages))
	for i, m := range messages {
		out[i] = m.Response()
	}
	j.FeedbackMessages = &out
	return j
}

// Feedback is a feedback message as FeedbackColumns selects it.
type Feedback struct {
	ID           int64          `db:"id"`
	JobID        int64          `db:"job_id"`
	Message      *string        `db:"message"`
	FeedbackTags pq.StringArray `db:"feedback_tags"`
	Correct      *bool          `db:"correct"`
	Author       *string        `db:"author_name"`
	CreatedAt    time.Time      `db:"created_at"`
}

// FeedbackColumns selects a Feedback from `job_feedback f`.
const FeedbackColumns = `f.id, f.job_id, f.message, f.feedback_tags, f.correct,
	(SELECT u.email::text FROM users u WHERE u.id = f.author) AS author_name, f.created_at`

// Response renders the message.
func (f Feedback) Response() v1api.FeedbackMessage {
	return v1api.FeedbackMessage{Id: f.ID, JobId: f.JobID, Message: f.Message, FeedbackTags: nonNil(f.FeedbackTags),
		Correct: f.Correct, Author: f.Author, CreatedAt: f.CreatedAt}
}

// document passes a stored jsonb document through as it is, without decoding it (an empty one is {}).
func document(b []byte) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return json.RawMessage(b)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func float32Ptr(f *float64) *float32 {
	if f == nil {
		return nil
	}
	v := float32(*f)
	return &v
}
