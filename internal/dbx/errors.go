package dbx

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/lib/pq"
)

// Error kinds the HTTP layer maps to status codes. Stores return them (wrapped by Translate), never
// raw driver errors, so the mapping lives in one place.
var (
	// ErrNotFound: no row matched (404).
	ErrNotFound = errors.New("not found")
	// ErrConflict: a unique or exclusion constraint refused the write (409).
	ErrConflict = errors.New("conflict")
	// ErrReferenced: a foreign key refused the write (409 on delete, 422/400 on insert).
	ErrReferenced = errors.New("violates a reference")
	// ErrInvalid: a check constraint or a value PostgreSQL could not parse (400/422).
	ErrInvalid = errors.New("invalid value")
)

// ConstraintError carries which constraint refused a write, so a service can say which field clashed.
type ConstraintError struct {
	Kind       error
	Constraint string
	Detail     string
}

func (e *ConstraintError) Error() string {
	return fmt.Sprintf("%s (%s)", e.Kind, e.Constraint)
}

func (e *ConstraintError) Unwrap() error { return e.Kind }

// Translate turns driver errors into the kinds above; other errors pass through unchanged.
func Translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	var pqErr *pq.Error
	if !errors.As(err, &pqErr) {
		return err
	}
	switch pqErr.Code.Class() {
	case "23": // integrity constraint violation
		kind := ErrInvalid
		switch pqErr.Code {
		case "23505", "23P01": // unique_violation, exclusion_violation
			kind = ErrConflict
		case "23503": // foreign_key_violation
			kind = ErrReferenced
		}
		return &ConstraintError{Kind: kind, Constraint: pqErr.Constraint, Detail: pqErr.Detail}
	case "22": // data exception: bad input that reached SQL (invalid text representation, out of range …)
		return &ConstraintError{Kind: ErrInvalid, Constraint: pqErr.Column, Detail: pqErr.Message}
	case "57":
		if pqErr.Code == "57014" { // query_canceled: the request's context ended
			return context.Canceled
		}
	}
	return err
}
