package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/paging"
)

// HistoryActor is what job_history.actor records for a caller: its username (the e-mail address),
// shown as is, or nothing for an API key, which the contract shows as no person (the bulk operations
// record the same).
func HistoryActor(p *auth.Principal) *string {
	if p.Credential == auth.CredentialAPIKey || p.Email == "" {
		return nil
	}
	s := p.Email
	return &s
}

// authorID is the caller as the uuid columns record a person (job_feedback.author, jobs.created_by):
// the user, or nobody for an API key.
func authorID(p *auth.Principal) *uuid.UUID {
	if p.Credential == auth.CredentialAPIKey {
		return nil
	}
	return &p.UserID
}

// event is one job_history row to write.
type event struct {
	Event    string
	Actor    *string
	At       *time.Time // now when nil
	From, To *string
	Details  any
}

// record writes the events of one job in one statement, in their order.
func record(ctx context.Context, db dbx.DBTX, org, app uuid.UUID, jobID int64, evs ...event) error {
	if len(evs) == 0 {
		return nil
	}
	args := []any{org, jobID, app}
	rows := make([]string, len(evs))
	for i, e := range evs {
		var details *string
		if e.Details != nil {
			b, err := json.Marshal(e.Details)
			if err != nil {
				return err
			}
			s := string(b)
			details = &s
		}
		n := len(args)
		rows[i] = fmt.Sprintf("($1, $3, $2, coalesce($%d::timestamptz, now()), $%d, $%d, $%d, $%d, $%d::jsonb)", n+1, n+2, n+3, n+4, n+5, n+6)
		args = append(args, e.At, e.Event, e.Actor, e.From, e.To, details)
	}
	_, err := db.ExecContext(ctx, `INSERT INTO job_history (organization_id, app_id, job_id, at, event, actor, from_status, to_status, details)
		VALUES `+strings.Join(rows, ", "), args...)
	return err
}

// historyRow is a job_history row.
type historyRow struct {
	ID      int64     `db:"id"`
	At      time.Time `db:"at"`
	Event   string    `db:"event"`
	Actor   *string   `db:"actor"`
	From    *string   `db:"from_status"`
	To      *string   `db:"to_status"`
	Details *[]byte   `db:"details"`
}

// GetJobHistory answers the job's events. Creation writes no history row: the CREATED entry (id 0,
// so it comes first in recording order) is made from the job row, and pages over both alike.
func (s *Service) GetJobHistory(ctx context.Context, req v1api.GetJobHistoryRequestObject) (v1api.GetJobHistoryResponseObject, error) {
	g, _, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler)
	if err != nil {
		return nil, err
	}
	var total int64
	err = s.d.DB.GetContext(ctx, &total, `SELECT (SELECT count(*) FROM job_history h WHERE h.job_id = j.id) + 1
		FROM jobs j WHERE j.id = $1 AND j.app_id = $2 AND j.organization_id = $3`, req.JobId, g.App.ID, g.App.OrganizationID)
	if dbx.IsNoRows(err) {
		return nil, errJobNotFound()
	}
	if err != nil {
		return nil, err
	}
	prm := req.Params
	pg := paging.New(prm.Page, prm.Size, (*string)(prm.SortBy), (*string)(prm.OrderBy), paging.Columns{"id": "e.id", "at": "e.at"})
	var rows []historyRow
	err = s.d.DB.SelectContext(ctx, &rows, `
		SELECT e.id, e.at, e.event, e.actor, e.from_status, e.to_status, e.details
		FROM (
		  SELECT 0::bigint AS id, j.created_at AS at, 'CREATED' AS event,
		         (SELECT u.email::text FROM users u WHERE u.id = j.created_by) AS actor,
		         NULL::text AS from_status, NULL::text AS to_status, NULL::jsonb AS details
		  FROM jobs j WHERE j.app_id = $4 AND j.id = $1
		  UNION ALL
		  SELECT h.id, h.at, h.event, h.actor, h.from_status, h.to_status, h.details FROM job_history h WHERE h.job_id = $1
		) e
		ORDER BY `+pg.OrderBy()+` LIMIT $2 OFFSET $3`, req.JobId, pg.Limit(), pg.Offset(), g.App.ID)
	if err != nil {
		return nil, err
	}
	items := make([]v1api.JobHistoryEntry, len(rows))
	for i, r := range rows {
		items[i] = v1api.JobHistoryEntry{Id: r.ID, JobId: req.JobId, At: r.At, Event: v1api.JobHistoryEntryEvent(r.Event),
			Actor: r.Actor, FromStatus: r.From, ToStatus: r.To}
		if r.Details != nil {
			var d map[string]any
			if json.Unmarshal(*r.Details, &d) == nil && d != nil {
				items[i].Details = &d
			}
		}
	}
	return v1api.GetJobHistory200JSONResponse{Items: items, Total: total, Page: pg.Page, Size: pg.Size}, nil
}
