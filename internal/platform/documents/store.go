package documents

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

var errNotFound = httpx.NotFound("document file")

type row struct {
	ID               uuid.UUID  `db:"id"`
	OrganizationID   uuid.UUID  `db:"organization_id"`
	UserID           *uuid.UUID `db:"user_id"`
	Name             string     `db:"name"`
	DatabaseType     string     `db:"database_type"`
	Description      *string    `db:"description"`
	CredentialID     *uuid.UUID `db:"credential_id"`
	SourceTable      *string    `db:"source_table"`
	Status           string     `db:"status"`
	Error            *string    `db:"error"`
	CurrentRevision  *uuid.UUID `db:"current_revision"`
	CurrentFileID    *uuid.UUID `db:"current_file_id"`
	CurrentTableName *string    `db:"current_table_name"`
	RevisionCount    int        `db:"revision_count"`
	TotalRows        int64      `db:"total_rows"`
	ModifiedBy       string     `db:"modified_by"`
	CreatedAt        time.Time  `db:"created_at"`
	UpdatedAt        time.Time  `db:"updated_at"`
}

const columns = `id, organization_id, user_id, name, database_type, description, credential_id, source_table, status,
	error, current_revision, current_file_id, current_table_name, revision_count, total_rows, modified_by,
	created_at, updated_at`

func (r row) response() platformapi.DocumentFileResponse {
	out := platformapi.DocumentFileResponse{Id: r.ID, Name: r.Name, DatabaseType: platformapi.DocumentFileResponseDatabaseType(r.DatabaseType),
		Status: platformapi.DocumentFileStatus(r.Status), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		Description: r.Description, CredentialId: r.CredentialID, Error: r.Error, CurrentFileId: r.CurrentFileID,
		CurrentTableName: r.CurrentTableName, ModifiedBy: &r.ModifiedBy, RevisionCount: &r.RevisionCount}
	total := int(r.TotalRows)
	out.TotalRows = &total
	if r.DatabaseType == "sql" {
		out.CurrentTableName = r.SourceTable
	}
	return out
}

// get reads one document of the organization; another organization's is the same 404 as a random id.
func get(ctx context.Context, db dbx.DBTX, org, id uuid.UUID, forUpdate bool) (row, error) {
	q := `SELECT ` + columns + ` FROM documents WHERE organization_id = $1 AND id = $2`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	var r row
	err := db.GetContext(ctx, &r, q, org, id)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return row{}, errNotFound
	}
	return r, err
}
