package jobs

// Plain submissions (to an app with no flow, outside a measurement round) that arrive together are
// written together: one statement and one commit for all of them, while the organizations' balances are
// comfortable. Each is the statement insertPaid would have sent alone, for many rows.

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/coalesce"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// paidLanes and paidBatch bound the batches: at most paidLanes statements at a time, each of at most
// paidBatch jobs. Two lanes let one batch commit while the next runs, and keep batches large: in
// BenchmarkV1 (16 clients, 2 cores) one lane wrote 4,875 jobs/s in batches of 7.9, two 4,094 in
// batches of 4.3, four 3,282 in batches of 2.5, and a statement a job about 2,000. Two rather than
// one, so that one slow batch does not hold every submission of the process.
const paidLanes, paidBatch = 2, 64

// paidAlone is the size of input and metadata past which a submission is written alone, so that a
// batch's document stays within paidBatch × paidAlone bytes.
const paidAlone = 64 << 10

// paid is one submission waiting to be written with others.
type paid struct {
	ctx                context.Context
	g                  *access.Grant
	p                  *auth.Principal
	sub                submission
	status, processing string
	out                *v1api.JobSubmitted
	ok                 bool
	err                error
	done               chan struct{}
}

// newPaidWriter returns the coalescer that writes the submissions of db in batches.
func newPaidWriter(db *sqlx.DB) *coalesce.Coalescer[*paid] {
	return coalesce.New(paidLanes, paidBatch, func(batch []*paid) { writePaid(db, batch) })
}

// submitPaid writes a plain submission as insertPaid does, with the others that arrive meanwhile.
func (s *Service) submitPaid(ctx context.Context, g *access.Grant, p *auth.Principal, sub submission, status, processing string, out *v1api.JobSubmitted) (bool, error) {
	if len(sub.input)+len(sub.metadata) > paidAlone {
		return insertPaid(ctx, s.d.DB, g, p, sub, status, processing, out)
	}
	item := &paid{ctx: ctx, g: g, p: p, sub: sub, status: status, processing: processing, out: out, done: make(chan struct{})}
	s.paid.Add(item)
	<-item.done
	return item.ok, item.err
}

// writePaid writes a batch and answers each of its submissions. A batch the database refuses as a
// whole is written again a submission at a time, so that one bad row does not fail the others and each
// gets its own answer.
func writePaid(db *sqlx.DB, batch []*paid) {
	defer func() {
		// A lane is no request's goroutine: what would have been a request's 500 is each one's error.
		r := recover()
		for _, b := range batch {
			if r != nil && !b.ok && b.err == nil {
				b.err = fmt.Errorf("jobs: writing a batch of submissions: %v", r)
			}
			close(b.done)
		}
	}()
	if len(batch) > 1 {
		// The statement writes for many requests: one that is given up does not cancel the others'.
		if err := insertPaidBatch(context.WithoutCancel(batch[0].ctx), db, batch); err == nil {
			return
		}
	}
	for _, b := range batch {
		b.ok, b.err = insertPaid(b.ctx, db, b.g, b.p, b.sub, b.status, b.processing, b.out)
	}
}

// paidRow is a submission as the batch statement reads it (jsonb_to_recordset).
type paidRow struct {
	Status     string `json:"status"`
	Processing string `json:"processing"`
	jobRow
}

// jobRow is what a batch statement writes of each submission's job (jsonb_to_recordset).
type jobRow struct {
	Org       uuid.UUID       `json:"org"`
	App       uuid.UUID       `json:"app"`
	Input     json.RawMessage `json:"input"`
	Metadata  json.RawMessage `json:"metadata"`
	Tags      []string        `json:"tags"`
	BatchID   *string         `json:"batch_id"`
	Priority  int             `json:"priority"`
	CreatedBy *uuid.UUID      `json:"created_by"`
	Deadline  *time.Time      `json:"deadline"`
	TTL       *int            `json:"ttl"`
	Actor     string          `json:"actor"`
}

// rowOf is the job of a submission of g's app by p, for a batch statement.
func rowOf(g *access.Grant, p *auth.Principal, sub submission) jobRow {
	return jobRow{Org: g.App.OrganizationID, App: g.App.ID, Input: json.RawMessage(sub.input), Metadata: json.RawMessage(sub.metadata),
		Tags: sub.tags, BatchID: sub.batchID, Priority: sub.priority, CreatedBy: authorID(p), Deadline: sub.deadline,
		TTL: sub.ttlSeconds, Actor: p.Actor()}
}

// insertPaidBatch writes the jobs of the batch whose organization's balance stays comfortable after
// all of the batch's jobs of that organization are paid, with their usage records and credit; the
// others are left with ok false, for the careful path (see insertPaid).
func insertPaidBatch(ctx context.Context, db *sqlx.DB, batch []*paid) error {
	rows := make([]paidRow, len(batch))
	for i, b := range batch {
		rows[i] = paidRow{Status: b.status, Processing: b.processing, jobRow: rowOf(b.g, b.p, b.sub)}
	}
	doc, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	var written []struct {
		Ord       int        `db:"ord"`
		ID        int64      `db:"id"`
		CreatedAt time.Time  `db:"created_at"`
		ExpiresAt *time.Time `db:"expires_at"`
	}
	// The ids are taken before the insert, so that each row written is known by its place in the batch.
	err = sqlx.SelectContext(ctx, db, &written, `
		WITH v AS (
		  SELECT * FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (org uuid, app uuid, status text,
		    processing text, input jsonb, metadata jsonb, tags text[], batch_id text, priority int, created_by uuid,
		    deadline timestamptz, ttl int, actor text)) WITH ORDINALITY AS v (org, app, status, processing, input, metadata,
		    tags, batch_id, priority, created_by, deadline, ttl, actor, ord)
		), paid AS (
		  SELECT nextval(pg_get_serial_sequence('jobs', 'id')) AS id, v.* FROM v
		  WHERE `+credits.RemainingSQL("v.org")+` >= $2 + (SELECT count(*) FROM v w WHERE w.org = v.org)
		), job AS (
		  INSERT INTO jobs (id, organization_id, app_id, status, processing_state, input, metadata, tags, batch_id, priority,
		    created_by, expires_at) OVERRIDING SYSTEM VALUE
		  SELECT id, org, app, status, processing, input, metadata, tags, batch_id, priority, created_by,
		    coalesce(deadline, now() + make_interval(secs => ttl)) FROM paid ORDER BY ord
		  RETURNING id, organization_id, created_at, expires_at
		), usage AS (
		  INSERT INTO usage_records (organization_id, product_id, job_id, amount, created_by)
		  SELECT job.organization_id, $3, job.id, 1, paid.actor FROM job JOIN paid USING (id)
		), spend AS (
		  `+credits.ConsumeSQL("organization_id", "job")+`
		)
		SELECT paid.ord, job.id, job.created_at, job.expires_at FROM job JOIN paid USING (id)`,
		string(doc), credits.Comfortable, credits.JobSubmissionProduct)
	if err != nil {
		return err
	}
	for _, w := range written {
		b := batch[w.Ord-1]
		b.ok = true
		b.out.Id, b.out.CreatedAt, b.out.ExpiresAt = w.ID, w.CreatedAt, w.ExpiresAt
	}
	return nil
}
