package taskexecutions

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/flows"
)

// execHead is what the operations need to know of an execution.
type execHead struct {
	ID      uuid.UUID `db:"id"`
	Org     uuid.UUID `db:"organization_id"`
	Deleted bool      `db:"deleted"`
}

// errNotFound is the one 404 of every execution the caller may not see: missing, another organization's,
// or of a private flow the caller may not see.
var errNotFound = httpx.NotFound("flow execution")

// errDeleted refuses reports on a deleted execution, whose attempts stay readable.
var errDeleted = httpx.Conflict("the flow execution is deleted; its task executions can be read but no longer reported")

// visible reads the execution if the caller may see it (the executions rule: the caller's organization,
// and a flow the caller may see).
func visible(ctx context.Context, db dbx.DBTX, p *auth.Principal, id uuid.UUID) (execHead, error) {
	q := `SELECT x.id, x.organization_id, (x.deleted_at IS NOT NULL OR x.status = 'deleted') AS deleted
		FROM flow_executions x JOIN flows f ON f.id = x.flow_id
		WHERE x.id = $1 AND x.organization_id = $2 AND ` + flows.SeenBy(p, "$3")
	args := []any{id, p.OrganizationID}
	if !flows.Admin(p) {
		args = append(args, p.UserID)
	}
	var h execHead
	err := db.GetContext(ctx, &h, q, args...)
	if errors.Is(err, sql.ErrNoRows) {
		return h, errNotFound
	}
	return h, err
}
