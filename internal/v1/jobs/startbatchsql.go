package jobs

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/credits"
)

// startedRow is a job of a batch as insertStartedBatch's statement reads it (jsonb_to_recordset).
type startedRow struct {
	ID      int64     `json:"id"`
	Exec    uuid.UUID `json:"exec"`
	Flow    uuid.UUID `json:"flow"`
	Version int       `json:"version"`
	jobRow
}

// insertStartedBatch writes the batch's jobs (ids, the ids taken for them) where their executions
// stand, with their histories, usage records and credit, as insertStarted does for one, when every
// organization's balance stays comfortable after all of its jobs in the batch are paid
// and every job runs the version its flow's jobs run now (the version came from a cache, see prepare);
// errRefused otherwise, having written nothing. It answers the executions that ended within
// their start, whose jobs the caller moves on (job_follow).
func insertStartedBatch(ctx context.Context, tx *sqlx.Tx, batch []*starting, ids []int64) ([]string, error) {
	rows := make([]startedRow, len(batch))
	// The executions are read once, by id (= ANY), before the jobs are joined to them: joined directly,
	// the planner took them for a table of a few rows while their start had just grown it (statistics lag
	// behind a table that fills up), and scanned the whole of it again for every job of the batch, which
	// was a third of the statement's time while a bench filled an empty database.
	execs := make([]string, len(batch))
	for i, b := range batch {
		execs[i] = b.sub.execution.String()
		rows[i] = startedRow{ID: ids[i], Exec: *b.sub.execution, Flow: *b.g.App.APIID, Version: b.sub.version,
			jobRow: rowOf(b.g, b.p, b.sub)}
	}
	doc, err := json.Marshal(rows)
	if err != nil {
		return nil, err
	}
	var written []struct {
		Ord       int        `db:"ord"`
		ID        int64      `db:"id"`
		CreatedAt time.Time  `db:"created_at"`
		ExpiresAt *time.Time `db:"expires_at"`
		Exec      string     `db:"exec"`
		Ended     bool       `db:"ended"`
	}
	err = tx.SelectContext(ctx, &written, `
		WITH v AS (
		  SELECT * FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (id bigint, exec uuid, org uuid, app uuid, input jsonb,
		    metadata jsonb, tags text[], batch_id text, priority int, created_by uuid, deadline timestamptz, ttl int, actor text,
		    flow uuid, version int)) WITH ORDINALITY AS v (id, exec, org, app, input, metadata, tags, batch_id, priority, created_by,
		    deadline, ttl, actor, flow, version, ord)
		), fx AS MATERIALIZED (
		  SELECT e.id, e.status, e AS whole FROM flow_executions e WHERE e.id = ANY($4::uuid[])
		), x AS (
		  SELECT v.*, `+standing+`
		  FROM v JOIN fx f ON f.id = v.exec, job_state(f.whole) js
		  WHERE `+credits.RemainingSQL("v.org")+` >= $2 + (SELECT count(*) FROM v w WHERE w.org = v.org)
		    AND v.version = (SELECT fv.version FROM flow_versions fv WHERE fv.flow_id = v.flow AND fv.valid
		      ORDER BY fv.status = 'published' DESC, fv.version DESC LIMIT 1)
		), job AS (
		  INSERT INTO jobs (id, organization_id, app_id, status, processing_state, input, metadata, tags, batch_id,
		    priority, created_by, expires_at, flow_execution_id) OVERRIDING SYSTEM VALUE
		  SELECT id, org, app, status, processing, input, metadata, tags, batch_id, priority, created_by,
		    coalesce(deadline, now() + make_interval(secs => ttl)), exec FROM x ORDER BY ord
		  RETURNING id, app_id, organization_id, status, processing_state, created_at, expires_at
		), history AS (
		  INSERT INTO job_history (job_id, app_id, organization_id, event, from_status, to_status, details)
		  SELECT job.id, job.app_id, job.organization_id, e.event, e.f, e.t, jsonb_build_object('flow_execution_id', x.exec)
		  FROM job JOIN x USING (id), LATERAL `+startedHistory+`
		  WHERE x.moved AND e.f <> e.t ORDER BY x.ord, e.o
		), usage AS (
		  INSERT INTO usage_records (organization_id, product_id, job_id, amount, created_by)
		  SELECT job.organization_id, $3, job.id, 1, x.actor FROM job JOIN x USING (id)
		), spend AS (
		  `+credits.ConsumeSQL("organization_id", "job")+`
		)
		SELECT x.ord, job.id, job.created_at, job.expires_at, x.exec::text AS exec, x.ended FROM job JOIN x USING (id)
		WHERE set_config('loopwork.jobs_follow', '', true) IS NOT NULL`,
		string(doc), credits.Comfortable, credits.JobSubmissionProduct, pq.Array(execs))
	if err != nil {
		return nil, err
	}
	if len(written) < len(batch) {
		return nil, errRefused // the transaction is rolled back: nothing it wrote stays
	}
	var ended []string
	for _, w := range written {
		b := batch[w.Ord-1]
		b.out.Id, b.out.CreatedAt, b.out.ExpiresAt = w.ID, w.CreatedAt, w.ExpiresAt
		if w.Ended {
			ended = append(ended, w.Exec)
		}
	}
	return ended, nil
}
