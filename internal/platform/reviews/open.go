package reviews

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// opening is a review task to open, as the executor and the create route both describe it.
type opening struct {
	org, execution uuid.UUID
	flow           uuid.UUID
	version        int
	target         string
	targetIdx      int
	source         string
	sourceIdx      int
	// content is what is reviewed (task_metadata.source_output); nil means null.
	content      json.RawMessage
	instructions *string
	users        []uuid.UUID
	required     int
	timeoutAt    *time.Time
	onTimeout    *string
	holds        bool
	actor        string
}

// reviewerRoles are the roles of people who may review; service accounts do not.
const reviewerRoles = `('org_admin', 'backoffice', 'app_user')`

// badUsers is the error of assigned ids that are not active reviewers of the organization.
type badUsers struct{ ids []uuid.UUID }

func (b badUsers) Error() string {
	return fmt.Sprintf("%d assigned %s not an active user of the organization with a reviewer role: %v",
		len(b.ids), map[bool]string{true: "id is", false: "ids are"}[len(b.ids) == 1], b.ids)
}

// tooFew is the error of a review that needs more approvals than it has reviewers.
type tooFew struct{ required, users int }

func (t tooFew) Error() string {
	return fmt.Sprintf("required_approvals is %d but only %d users are assigned", t.required, t.users)
}

// errOpen is the error of a second open review of one target attempt.
type errOpen struct{}

func (errOpen) Error() string {
	return "a review task that is not completed already exists for this execution, target task and attempt"
}

// reviewers resolves the assigned users: the given ids, each checked, or, when none is given, the
// users invited to the flow and its creator who may review.
func reviewers(ctx context.Context, tx *sqlx.Tx, o opening) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	if len(o.users) == 0 {
		err := tx.SelectContext(ctx, &ids, `SELECT u.id FROM users u WHERE u.organization_id = $1 AND u.is_active
			AND u.role IN `+reviewerRoles+` AND (u.id IN (SELECT user_id FROM flow_invitations WHERE flow_id = $2)
			OR u.id = (SELECT created_by FROM flows WHERE id = $2)) ORDER BY u.created_at, u.id`, o.org, o.flow)
		return ids, err
	}
	asked := distinct(o.users)
	if err := tx.SelectContext(ctx, &ids, `SELECT u.id FROM unnest($1::uuid[]) WITH ORDINALITY AS a (id, ord)
		JOIN users u ON u.id = a.id WHERE u.organization_id = $2 AND u.is_active AND u.role IN `+reviewerRoles+`
		ORDER BY a.ord`, pq.Array(asked), o.org); err != nil {
		return nil, err
	}
	if len(ids) == len(asked) {
		return ids, nil
	}
	ok := make(map[uuid.UUID]bool, len(ids))
	for _, id := range ids {
		ok[id] = true
	}
	var bad []uuid.UUID
	for _, id := range asked {
		if !ok[id] {
			bad = append(bad, id)
		}
	}
	return nil, badUsers{bad}
}

// open writes a review task with its assignments and, when it expires, its timeout job, in tx, as
// insertMany writes several. The unique index on open reviews refuses a second one for the same target
// attempt (errOpen).
func (s *Service) open(ctx context.Context, tx *sqlx.Tx, o opening) (uuid.UUID, error) {
	ids, err := s.insertMany(ctx, tx, []opening{o})
	if err != nil {
		return uuid.Nil, err
	}
	return ids[0], nil
}

// distinct keeps the first occurrence of each id, in order.
func distinct(ids []uuid.UUID) []uuid.UUID {
	seen := make(map[uuid.UUID]bool, len(ids))
	out := make([]uuid.UUID, 0, len(ids))
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
