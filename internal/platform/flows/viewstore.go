package flows

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

const viewColumns = `v.id, v.flow_id, v.flow_version, v.view_name, v.ordered_tasks, v.hidden_tasks, v.is_default,
	v.created_at, v.updated_at, v.modified_by`

// viewRow is one flow_views row.
type viewRow struct {
	ID           uuid.UUID      `db:"id"`
	FlowID       uuid.UUID      `db:"flow_id"`
	FlowVersion  int            `db:"flow_version"`
	Name         string         `db:"view_name"`
	OrderedTasks pq.StringArray `db:"ordered_tasks"`
	HiddenTasks  pq.StringArray `db:"hidden_tasks"`
	IsDefault    bool           `db:"is_default"`
	CreatedAt    time.Time      `db:"created_at"`
	UpdatedAt    time.Time      `db:"updated_at"`
	ModifiedBy   string         `db:"modified_by"`
}

func (r viewRow) response() platformapi.FlowViewResponse {
	ordered, hidden, def := []string(r.OrderedTasks), []string(r.HiddenTasks), r.IsDefault
	return platformapi.FlowViewResponse{Id: r.ID, FlowId: r.FlowID, FlowVersion: r.FlowVersion, ViewName: r.Name,
		ViewData:  platformapi.FlowViewData{OrderedTasks: &ordered, HiddenTasks: &hidden, IsDefault: &def},
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ModifiedBy: r.ModifiedBy}
}

// viewData is the stored form of FlowViewData: omitted lists are empty, an omitted flag false.
type viewData struct {
	ordered, hidden []string
	isDefault       bool
}

func viewDataOf(d platformapi.FlowViewData) viewData {
	out := viewData{ordered: []string{}, hidden: []string{}, isDefault: flag(d.IsDefault)}
	if d.OrderedTasks != nil {
		out.ordered = *d.OrderedTasks
	}
	if d.HiddenTasks != nil {
		out.hidden = *d.HiddenTasks
	}
	return out
}

var errViewNotFound = httpx.NotFound("flow view")

// visibleView reads a view of a flow of the caller's organization that the caller may see.
func visibleView(ctx context.Context, db dbx.DBTX, c caller, id uuid.UUID, lock bool) (viewRow, error) {
	q := `SELECT ` + viewColumns + ` FROM flow_views v JOIN flows f ON f.id = v.flow_id AND f.deleted_at IS NULL
		WHERE v.id = $1 AND v.organization_id = $2 AND ` + seeCond(c, "$3")
	args := []any{id, c.org}
	if !c.admin {
		args = append(args, c.user)
	}
	if lock {
		q += ` FOR UPDATE OF v`
	}
	var r viewRow
	err := db.GetContext(ctx, &r, q, args...)
	if errors.Is(err, sql.ErrNoRows) {
		return r, errViewNotFound
	}
	return r, err
}

// clearDefault takes the default flag from the other views of the version, before one takes it.
func clearDefault(ctx context.Context, db dbx.DBTX, flow uuid.UUID, version int, except uuid.UUID) error {
	_, err := db.ExecContext(ctx, `UPDATE flow_views SET is_default = false, updated_at = now()
		WHERE flow_id = $1 AND flow_version = $2 AND is_default AND id <> $3`, flow, version, except)
	return err
}

// viewWriteError maps a taken view name to the contract's 409.
func viewWriteError(err error, name string) error {
	var ce *dbx.ConstraintError
	if errors.As(dbx.Translate(err), &ce) && ce.Constraint == "flow_views_name_key" {
		return httpx.Conflict("this flow version has a view named %q already", name)
	}
	return err
}
