// Package reviewrule is the one rule of who may complete a human review, the same on /api and on /v1.
//
// The doors are POST /api/human-review-tasks/{id}/complete, the /v1 label of the job whose execution
// waits for the review (PUT /v1/apps/{app_id}/jobs/{job_id}/response), and the /v1 label queue that
// offers that job (GET /v1/apps/{app_id}/label). A review may be completed by
//
//   - its assigned users,
//   - the administrators of its organization (org_admin, backoffice), and
//   - when its assigned users were not named but defaulted (the users invited to the flow and its
//     creator), also a caller the door lets work on the review on its own account: on /v1 a labeler
//     of the app. /api has no such caller; its review routes act through assignments.
//
// The rule's SQL is the database function review_open_to (db/schema.sql), since the /v1 label queue
// is a database function (label_lease) that must skip, in its walk of the queue, the jobs it may not
// offer. Everything in Go asks through this package, so both interfaces answer from that one definition.
package reviewrule

import (
	"context"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
)

// Refusal is the message of the 403 both interfaces answer to a caller the rule keeps out.
const Refusal = "only users assigned to this review, and administrators of its organization, may complete it"

// Caller is who asks to complete a review.
type Caller struct {
	User uuid.UUID
	// Admin is whether the caller administers the review's organization; an administrator may complete
	// any review of it.
	Admin bool
	// Worker is whether the door lets the caller work on the review without an assignment (a labeler of
	// the /v1 app whose job waits for it). It opens to the caller a review whose users were defaulted.
	Worker bool
}

// For is the caller a principal is; worker as for Caller.Worker.
func For(p *auth.Principal, worker bool) Caller {
	return Caller{User: p.UserID, Admin: Admin(p.Role), Worker: worker}
}

// Admin is whether a role administers its organization's reviews.
func Admin(r auth.Role) bool { return r == auth.RoleOrgAdmin || r == auth.RoleBackoffice }

// Cond is the SQL condition that a caller may complete a review: review, user, admin and worker are SQL
// expressions (columns or parameters) of the review's id, the caller's user id and Caller's two flags.
// A NULL review (none open) is open to every worker.
func Cond(review, user, admin, worker string) string {
	return "review_open_to(" + review + ", " + user + ", " + admin + ", " + worker + ")"
}

// JobReview is the SQL expression of the review a /v1 label of the job of execution exec completes: its
// execution's oldest open review, or NULL when none is open.
func JobReview(exec string) string { return "job_review(" + exec + ")" }

// MayComplete answers whether c may complete the review.
func MayComplete(ctx context.Context, db dbx.DBTX, review uuid.UUID, c Caller) (bool, error) {
	var ok bool
	err := db.GetContext(ctx, &ok, `SELECT `+Cond("$1", "$2", "$3", "$4"), review, c.User, c.Admin, c.Worker)
	return ok, err
}

// MayLabel answers whether c may complete the review the job of execution exec waits for (true when
// it waits for none: then there is nothing the rule keeps).
func MayLabel(ctx context.Context, db dbx.DBTX, exec uuid.UUID, c Caller) (bool, error) {
	var ok bool
	err := db.GetContext(ctx, &ok, `SELECT `+Cond(JobReview("$1"), "$2", "$3", "$4"), exec, c.User, c.Admin, c.Worker)
	return ok, err
}
