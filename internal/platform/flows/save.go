package flows

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/httpx"
)

// change is what a PUT or PATCH asks for; nil fields keep the latest version's value.
type change struct {
	definition  json.RawMessage // from the body (PUT); nil: the previous version's
	displayName *string
	description *string // "" clears
	settings    *platformapi.FlowSettings
	status      *platformapi.FlowStatus
	visibility  *platformapi.FlowVisibility
	// statusLoc is where the status of the request is, for the 422 of publishing an invalid definition.
	statusLoc []any
}

// saved is the outcome of a change: the latest version after it, its validation, and the flow.
type saved struct {
	v    version
	chk  checked
	head flowHead
}

// save applies a change. A definition that differs from the latest version's is saved as a new
// version, the latest plus one, under the flow's row lock so that two concurrent changes get
// consecutive numbers and neither is lost. Any other change (name, description, status, visibility,
// settings) is made in place on the latest version: it neither makes a version nor outdates executions,
// which ran the same definition. A change that changes nothing writes nothing.
func (s *Service) save(ctx context.Context, id uuid.UUID, ch change) (saved, error) {
	c := callerOf(ctx)
	var out saved
	err := dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		f, err := visibleFlow(ctx, tx, c, id, true)
		if err != nil {
			return err
		}
		if !f.changeable(c) {
			return httpx.Forbidden("only the flow's creator, users invited to it and administrators of its organization may change it")
		}
		prev, err := getVersion(ctx, tx, f, 0)
		if err != nil {
			return err
		}
		next, def, err := apply(prev, ch)
		if err != nil {
			return err
		}
		chk := s.check(def)
		out = saved{v: prev, chk: chk, head: f}
		newDefinition, err := definitionChanged(prev, ch, def)
		if err != nil {
			return err
		}
		if !newDefinition {
			// The stored text, not the request's spelling of the same value.
			next.Definition = prev.Definition
			if same(prev, next) {
				return nil
			}
		}
		fromBody := ch.definition != nil
		if newDefinition {
			if err := chk.refusal(fromBody); err != nil {
				return err
			}
			// The saver of a new definition is whose right each attempt of it checks.
			if err := s.credentialRefusal(ctx, tx, c, def, fromBody); err != nil {
				return err
			}
		}
		if next.Status == string(platformapi.Published) && !chk.valid() {
			return chk.publishRefusal(fromBody, ch.statusLoc)
		}
		next.ModifiedBy = c.actor
		if !newDefinition {
			if _, err := tx.ExecContext(ctx, `UPDATE flows SET modified_by = $2 WHERE id = $1`, f.ID, c.actor); err != nil {
				return err
			}
			if err := amendVersion(ctx, tx, &next); err != nil {
				return err
			}
			out = saved{v: next, chk: chk, head: f}
			return nil
		}
		next.Valid = chk.valid()
		if err := tx.GetContext(ctx, &next.Version, `UPDATE flows SET latest_version = latest_version + 1,
			modified_by = $2 WHERE id = $1 RETURNING latest_version`, f.ID, c.actor); err != nil {
			return err
		}
		if err := insertVersion(ctx, tx, &next); err != nil {
			return err
		}
		if err := s.outdate(ctx, tx, f.ID, next, c.actor); err != nil {
			return err
		}
		f.LatestVersion = next.Version
		out = saved{v: next, chk: chk, head: f}
		return nil
	})
	return out, err
}

// definitionChanged is whether the change brings a definition other than the latest version's. A PUT
// that sends back the definition it read is no new definition: the two are compared as JSON values
// (def is the change's, decoded), not as text, since the stored one is jsonb's rendering.
func definitionChanged(prev version, ch change, def map[string]any) (bool, error) {
	if ch.definition == nil {
		return false, nil
	}
	old, err := decodeObject(prev.Definition)
	if err != nil {
		return false, err
	}
	return !reflect.DeepEqual(old, def), nil
}

// apply returns the next version: the previous one with the change's fields, and its definition decoded.
func apply(prev version, ch change) (version, map[string]any, error) {
	next := prev
	if ch.definition != nil {
		next.Definition = ch.definition
	}
	def, err := decodeObject(next.Definition)
	if err != nil {
		return next, nil, err
	}
	if ch.displayName != nil {
		next.DisplayName = *ch.displayName
	}
	if ch.description != nil {
		next.Description = emptyIsNull(ch.description)
	}
	if ch.settings != nil {
		st, err := settingsJSON(ch.settings)
		if err != nil {
			return next, nil, err
		}
		next.Settings = st
	}
	if ch.status != nil {
		next.Status = string(*ch.status)
	}
	if ch.visibility != nil {
		next.Visibility = string(*ch.visibility)
	}
	return next, def, nil
}

// same is whether a change changed nothing.
func same(a, b version) bool {
	return a.DisplayName == b.DisplayName && eqPtr(a.Description, b.Description) && a.Status == b.Status &&
		a.Visibility == b.Visibility && bytes.Equal(a.Definition, b.Definition) && jsonEqual(a.Settings, b.Settings)
}

func eqPtr(a, b *string) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }

// jsonEqual compares two settings documents by meaning (jsonb reorders keys).
func jsonEqual(a, b nullRaw) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// outdate deals with the finished executions of earlier versions, which no longer reflect the flow:
// with settings.reexecute_on_update (and a valid new version) the engine moves each to the new version
// and runs again what changed; otherwise they become stale.
func (s *Service) outdate(ctx context.Context, tx *sqlx.Tx, flow uuid.UUID, next version, actor string) error {
	var st struct {
		Reexecute bool `json:"reexecute_on_update"`
	}
	if next.Settings != nil {
		if err := json.Unmarshal(next.Settings, &st); err != nil {
			return err
		}
	}
	if st.Reexecute && next.Valid && s.engine != nil {
		ids, err := run.FinishedBefore(ctx, tx, flow, next.Version)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := s.engine.Rerun(ctx, tx, id, next.Version); err != nil {
				return err
			}
		}
		return nil
	}
	return run.MarkStale(ctx, tx, flow, next.Version, actor)
}
