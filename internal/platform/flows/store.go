package flows

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/dbx"
)

// versionColumns are the columns of flow_versions every read returns.
const versionColumns = `flow_id, version, organization_id, display_name, description, status,
	coalesce(visibility, 'organization') AS visibility, definition, settings, valid, created_at, updated_at, modified_by`

// version is one stored version of a flow.
type version struct {
	FlowID      uuid.UUID       `db:"flow_id"`
	Version     int             `db:"version"`
	Org         uuid.UUID       `db:"organization_id"`
	DisplayName string          `db:"display_name"`
	Description *string         `db:"description"`
	Status      string          `db:"status"`
	Visibility  string          `db:"visibility"`
	Definition  json.RawMessage `db:"definition"`
	// Settings is null when the defaults apply.
	Settings   nullRaw   `db:"settings"`
	Valid      bool      `db:"valid"`
	CreatedAt  time.Time `db:"created_at"`
	UpdatedAt  time.Time `db:"updated_at"`
	ModifiedBy string    `db:"modified_by"`
}

// nullRaw is a jsonb column that may be NULL.
type nullRaw []byte

func (n *nullRaw) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*n = nil
	case []byte:
		*n = append((*n)[:0], v...)
	case string:
		*n = []byte(v)
	default:
		return errors.New("flows: unexpected jsonb value")
	}
	return nil
}

// value is what the column is written as: NULL or the JSON text.
func (n nullRaw) value() any {
	if n == nil {
		return nil
	}
	return string(n)
}

// getVersion reads one version of a flow; number 0 means the latest.
func getVersion(ctx context.Context, db dbx.DBTX, f flowHead, number int) (version, error) {
	if number == 0 {
		number = f.LatestVersion
	}
	var v version
	err := db.GetContext(ctx, &v, `SELECT `+versionColumns+` FROM flow_versions WHERE flow_id = $1 AND version = $2`, f.ID, number)
	if errors.Is(err, sql.ErrNoRows) {
		return v, dbx.ErrNotFound
	}
	return v, err
}

// listVersions reads a page of a flow's versions, newest first.
func listVersions(ctx context.Context, db dbx.DBTX, flow uuid.UUID, limit, offset int) ([]version, error) {
	out := []version{}
	err := db.SelectContext(ctx, &out, `SELECT `+versionColumns+` FROM flow_versions WHERE flow_id = $1
		ORDER BY version DESC LIMIT $2 OFFSET $3`, flow, limit, offset)
	return out, err
}

// latestVersions reads the latest versions of the flows, in the order of ids.
func latestVersions(ctx context.Context, db dbx.DBTX, ids []uuid.UUID) ([]version, error) {
	rows := []version{}
	err := db.SelectContext(ctx, &rows, `SELECT `+versionColumns+` FROM flow_versions
		WHERE (flow_id, version) IN (SELECT id, latest_version FROM flows WHERE id = ANY($1))`, pq.Array(ids))
	if err != nil {
		return nil, err
	}
	byID := make(map[uuid.UUID]version, len(rows))
	for _, r := range rows {
		byID[r.FlowID] = r
	}
	out := make([]version, 0, len(ids))
	for _, id := range ids {
		if r, ok := byID[id]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// executionCounts counts the executions of each flow over all its versions, deleted ones excluded.
func executionCounts(ctx context.Context, db dbx.DBTX, ids []uuid.UUID) (map[uuid.UUID]int, error) {
	var rows []struct {
		Flow uuid.UUID `db:"flow_id"`
		N    int       `db:"n"`
	}
	err := db.SelectContext(ctx, &rows, `SELECT flow_id, count(*) AS n FROM flow_executions
		WHERE flow_id = ANY($1) AND deleted_at IS NULL GROUP BY flow_id`, pq.Array(ids))
	out := make(map[uuid.UUID]int, len(rows))
	for _, r := range rows {
		out[r.Flow] = r.N
	}
	return out, err
}

// insertVersion writes a version; the flow's latest_version must already name it, so that the
// flows_follow_latest_version trigger copies its list columns onto the flow. Its saver is whoever
// modifies it now (saved_by: whose credential rights its attempts check). The definition is not read
// back: it can be megabytes, and v holds it already.
func insertVersion(ctx context.Context, db dbx.DBTX, v *version) error {
	var stamps struct {
		CreatedAt time.Time `db:"created_at"`
		UpdatedAt time.Time `db:"updated_at"`
	}
	err := db.GetContext(ctx, &stamps, `INSERT INTO flow_versions (flow_id, version, organization_id, display_name,
		description, status, visibility, definition, settings, valid, modified_by, saved_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING created_at, updated_at`,
		v.FlowID, v.Version, v.Org, v.DisplayName, v.Description, v.Status, v.Visibility, string(v.Definition),
		v.Settings.value(), v.Valid, v.ModifiedBy)
	v.CreatedAt, v.UpdatedAt = stamps.CreatedAt, stamps.UpdatedAt
	return err
}

// amendVersion writes a version's attributes other than its definition in place: the latest version is
// the flow's current state, and a new name or status is no new version. Its definition, validity and
// saver stay as they were; the trigger on flow_versions copies the list columns onto the flow.
func amendVersion(ctx context.Context, db dbx.DBTX, v *version) error {
	return db.GetContext(ctx, &v.UpdatedAt, `UPDATE flow_versions SET display_name = $3, description = $4,
			status = $5, visibility = $6, settings = $7, modified_by = $8, updated_at = now()
		WHERE flow_id = $1 AND version = $2 RETURNING updated_at`,
		v.FlowID, v.Version, v.DisplayName, v.Description, v.Status, v.Visibility, v.Settings.value(), v.ModifiedBy)
}
