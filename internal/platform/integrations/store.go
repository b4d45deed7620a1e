package integrations

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
)

// columns read an integration with its credential's provider; an integration of a deleted flow is
// gone with the flow, so every read joins the live flow.
const columns = `i.id, i.organization_id, i.flow_id, i.credential_id, c.provider, i.description, i.task_name,
	i.created_at, i.updated_at, i.modified_by`

const from = ` FROM integrations i
	JOIN flows f ON f.id = i.flow_id AND f.deleted_at IS NULL
	LEFT JOIN credentials c ON c.id = i.credential_id`

type row struct {
	ID           uuid.UUID  `db:"id"`
	Org          uuid.UUID  `db:"organization_id"`
	FlowID       uuid.UUID  `db:"flow_id"`
	CredentialID *uuid.UUID `db:"credential_id"`
	Provider     *string    `db:"provider"`
	Description  string     `db:"description"`
	TaskName     string     `db:"task_name"`
	CreatedAt    time.Time  `db:"created_at"`
	UpdatedAt    time.Time  `db:"updated_at"`
	ModifiedBy   string     `db:"modified_by"`
}

func (r row) response() platformapi.IntegrationResponse {
	out := platformapi.IntegrationResponse{Id: r.ID, FlowId: r.FlowID, CredentialId: r.CredentialID,
		Description: r.Description, TaskName: r.TaskName, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		ModifiedBy: r.ModifiedBy}
	if r.Provider != nil {
		p := platformapi.ProviderApiEnum(*r.Provider)
		out.Provider = &p
	}
	return out
}

func get(ctx context.Context, db dbx.DBTX, org, id uuid.UUID) (row, error) {
	var r row
	err := db.GetContext(ctx, &r, `SELECT `+columns+from+` WHERE i.organization_id = $1 AND i.id = $2`, org, id)
	return r, dbx.Translate(err)
}

type filter struct {
	flow, credential *uuid.UUID
}

func list(ctx context.Context, db dbx.DBTX, org uuid.UUID, f filter, limit, offset int) ([]row, int, error) {
	where := ` WHERE i.organization_id = $1 AND ($2::uuid IS NULL OR i.flow_id = $2)
		AND ($3::uuid IS NULL OR i.credential_id = $3)`
	var total int
	if err := db.GetContext(ctx, &total, `SELECT count(*)`+from+where, org, f.flow, f.credential); err != nil {
		return nil, 0, err
	}
	rows := []row{}
	err := db.SelectContext(ctx, &rows, `SELECT `+columns+from+where+
		` ORDER BY i.created_at DESC, i.id DESC LIMIT $4 OFFSET $5`, org, f.flow, f.credential, limit, offset)
	return rows, total, err
}

func insert(ctx context.Context, db dbx.DBTX, r row) error {
	_, err := db.ExecContext(ctx, `INSERT INTO integrations
		(id, organization_id, flow_id, credential_id, description, task_name, modified_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		r.ID, r.Org, r.FlowID, r.CredentialID, r.Description, r.TaskName, r.ModifiedBy)
	return dbx.Translate(err)
}

func remove(ctx context.Context, db dbx.DBTX, org, id uuid.UUID) (bool, error) {
	res, err := db.ExecContext(ctx, `DELETE FROM integrations i USING flows f
		WHERE i.organization_id = $1 AND i.id = $2 AND f.id = i.flow_id AND f.deleted_at IS NULL`, org, id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
