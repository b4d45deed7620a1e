package members

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// rankOf orders membership roles in SQL the way access.Role orders them in Go.
func rankOf(col string) string {
	return `CASE ` + col + ` WHEN 'LABELER' THEN 1 WHEN 'REVIEWER' THEN 2 ELSE 3 END`
}

// roleOfRank turns a rank back into the contract's role.
func roleOfRank(rank int) v1api.MemberRole { return v1api.MemberRole(access.Role(rank).String()) }

// affected answers the 404 of a membership that did not exist when a write touched no row.
func affected(res interface{ RowsAffected() (int64, error) }, what string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return httpx.NotFound(what)
	}
	return nil
}

// releaseHeld gives back the app's jobs that users hold for labeling, so that others can take them.
// users is a subquery over $2 naming the users; only those left without any access to the app lose
// their jobs when onlyWithoutAccess is set.
func releaseHeld(ctx context.Context, tx *sqlx.Tx, app uuid.UUID, users string, arg any, onlyWithoutAccess bool) error {
	q := `UPDATE jobs j SET assigned_to = NULL, lock_expires_at = NULL
		WHERE j.app_id = $1 AND j.assigned_to IN (` + users + `)`
	if onlyWithoutAccess {
		q += ` AND NOT EXISTS (SELECT 1 FROM app_workers w WHERE w.app_id = $1 AND w.user_id = j.assigned_to)
			AND NOT EXISTS (SELECT 1 FROM app_worker_groups g JOIN worker_group_members m ON m.group_id = g.group_id
			                WHERE g.app_id = $1 AND m.user_id = j.assigned_to)
			AND NOT EXISTS (SELECT 1 FROM apps a WHERE a.id = $1 AND a.owner_id = j.assigned_to)
			AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = j.assigned_to
			                AND u.role IN ('` + string(auth.RoleOrgAdmin) + `', '` + string(auth.RoleIntegration) + `', '` + string(auth.RoleBackoffice) + `'))`
	}
	_, err := tx.ExecContext(ctx, q, app, arg)
	return err
}

// conflictOr maps a duplicate membership to the contract's 409.
func conflictOr(err error, msg string) error {
	if errors.Is(dbx.Translate(err), dbx.ErrConflict) {
		return httpx.Conflict("%s", msg)
	}
	return err
}
