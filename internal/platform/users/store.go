package users

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// errSelf keeps administrators from locking themselves out or raising their own rights.
var errSelf = httpx.NewError(http.StatusConflict, "cannot_modify_self",
	"you cannot change your own role or deactivate yourself")

// scope is the organization a principal's lookups are limited to: its own, or nil (every organization)
// for backoffice, which the admin routes let act across organizations.
func scope(p *auth.Principal) *uuid.UUID {
	if p.IsBackoffice() {
		return nil
	}
	org := p.OrganizationID
	return &org
}

// loadUser returns a user within the scope; one outside it is reported exactly like a missing one.
// forUpdate locks the row for a change in the same transaction.
func loadUser(ctx context.Context, db dbx.DBTX, id uuid.UUID, org *uuid.UUID, forUpdate bool) (UserRow, error) {
	q := `SELECT ` + SelectColumns + ` FROM users u WHERE u.id = $1 AND ($2::uuid IS NULL OR u.organization_id = $2)`
	if forUpdate {
		q += ` FOR UPDATE`
	}
	var r UserRow
	err := dbx.Translate(db.GetContext(ctx, &r, q, id, org))
	if errors.Is(err, dbx.ErrNotFound) {
		return r, httpx.NotFound("user")
	}
	return r, err
}

// cleanName trims surrounding white space from a first or last name; the contract's length limits
// have been checked already, but a name of spaces only passes them and is refused here.
func cleanName(field, name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", httpx.Invalid([]any{"body", field}, "string_too_short", "must not be blank")
	}
	return name, nil
}

// optionalName cleans a name the request may omit; nil stays nil (keep the stored value).
func optionalName(field string, name *string) (*string, error) {
	if name == nil {
		return nil, nil
	}
	n, err := cleanName(field, *name)
	if err != nil {
		return nil, err
	}
	return &n, nil
}

// emailTaken turns the per-organization unique e-mail into the contract's 409; other errors pass through.
func emailTaken(err error) error {
	err = dbx.Translate(err)
	var ce *dbx.ConstraintError
	if errors.As(err, &ce) && errors.Is(err, dbx.ErrConflict) && ce.Constraint == "users_organization_id_email_key" {
		return httpx.Conflict("a user with this e-mail address already exists in the organization")
	}
	return err
}
