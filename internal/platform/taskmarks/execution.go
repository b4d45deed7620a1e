package taskmarks

import (
	"context"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/flows"
)

// caller is the principal as the marks see it.
type caller struct {
	p         *auth.Principal
	user, org uuid.UUID
	// admin callers (org_admin, backoffice) see every flow, and so every execution, of their organization.
	admin bool
	actor string
}

func callerOf(ctx context.Context) caller {
	p := auth.MustFromContext(ctx)
	return caller{p: p, user: p.UserID, org: p.OrganizationID, actor: p.Actor(), admin: flows.Admin(p)}
}

// execHead is what the marks need to know of an execution.
type execHead struct {
	ID      uuid.UUID `db:"id"`
	Org     uuid.UUID `db:"organization_id"`
	FlowID  uuid.UUID `db:"flow_id"`
	Deleted bool      `db:"deleted"`
}

// seeExecution is the condition on executions e joined to their flows f that the caller may see, with
// the organization and the user as the parameters org and user. Executions stay within their organization: another
// organization's public flow does not make its executions visible. Within the organization, the flows
// rule applies: a private flow is seen by its creator, its invited users and the administrators.
func seeExecution(c caller, org, user string) string {
	return `e.organization_id = ` + org + ` AND ` + flows.SeenBy(c.p, user)
}

// seeArgs appends the user to args when seeExecution refers to it: PostgreSQL refuses a parameter that
// the query does not use.
func seeArgs(c caller, args ...any) []any {
	if c.admin {
		return args
	}
	return append(args, c.user)
}

// visibleExecutions reads the heads of those of ids that the caller may see; the others are simply
// absent from the map, so that a hidden execution and a missing one cannot be told apart. lock takes a
// share lock on each row, so an execution cannot be deleted while marks are written on it.
func visibleExecutions(ctx context.Context, db dbx.DBTX, c caller, ids []uuid.UUID, lock bool) (map[uuid.UUID]execHead, error) {
	q := `SELECT e.id, e.organization_id, e.flow_id, (e.deleted_at IS NOT NULL OR e.status = 'deleted') AS deleted
		FROM flow_executions e JOIN flows f ON f.id = e.flow_id
		WHERE e.id = ANY($1) AND ` + seeExecution(c, "$2", "$3") + ` ORDER BY e.id`
	if lock {
		q += ` FOR SHARE OF e`
	}
	var heads []execHead
	if err := db.SelectContext(ctx, &heads, q, seeArgs(c, pq.Array(ids), c.org)...); err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]execHead, len(heads))
	for _, h := range heads {
		out[h.ID] = h
	}
	return out, nil
}

// errExecutionNotFound is the one 404 of every execution the caller may not see: missing, another
// organization's, or of a private flow the caller may not see.
var errExecutionNotFound = httpx.NotFound("flow execution")

// errExecutionDeleted refuses writes on a deleted execution, whose marks stay readable.
var errExecutionDeleted = httpx.Conflict("the flow execution is deleted; its task statuses and tags can be read but no longer written")

// writableExecution reads and share-locks the execution a write names: 404 when the caller may not see
// it, 409 when it is deleted.
func writableExecution(ctx context.Context, db dbx.DBTX, c caller, id uuid.UUID) (execHead, error) {
	heads, err := visibleExecutions(ctx, db, c, []uuid.UUID{id}, true)
	if err != nil {
		return execHead{}, err
	}
	h, ok := heads[id]
	switch {
	case !ok:
		return execHead{}, errExecutionNotFound
	case h.Deleted:
		return execHead{}, errExecutionDeleted
	}
	return h, nil
}
