package flows

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// CreateFlow saves version 1 of a new flow as a draft, even when its definition has problems (they are
// in the reply), unless it is beyond the limits.
func (s *Service) CreateFlow(ctx context.Context, req platformapi.CreateFlowRequestObject) (platformapi.CreateFlowResponseObject, error) {
	c := callerOf(ctx)
	b := req.Body
	if err := nameOK(b.DisplayName, []any{"body", "display_name"}); err != nil {
		return nil, err
	}
	v := version{Version: 1, Org: c.org, DisplayName: b.DisplayName, Description: emptyIsNull(b.Description),
		Status: string(platformapi.Draft), Visibility: visibilityOr(b.Visibility, "organization"),
		ModifiedBy: c.actor, Definition: b.Definition}
	var err error
	if v.Settings, err = settingsJSON(b.Settings); err != nil {
		return nil, err
	}
	// Checking a large definition and writing it take about as long as each other, so they run side by
	// side: the version is written as not valid, and marked valid, or rolled back when it is beyond the
	// limits, once the check is done.
	checking := s.checkAsync(b.Definition)
	var chk checked
	err = dbx.WithTx(ctx, s.db, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &v.FlowID, `INSERT INTO flows (organization_id, created_by, modified_by)
			VALUES ($1, $2, $3) RETURNING id`, c.org, c.user, c.actor); err != nil {
			return err
		}
		written := insertVersion(ctx, tx, &v)
		r := <-checking
		if r.err != nil {
			return r.err
		}
		if err := r.chk.refusal(true); err != nil {
			return err // also when the write failed: a definition beyond the limits may be what failed it
		}
		if written != nil {
			return written
		}
		if err := s.credentialRefusal(ctx, tx, c, r.chk.def, true); err != nil {
			return err
		}
		chk = r.chk
		if !chk.valid() {
			return nil
		}
		v.Valid = true
		_, err := tx.ExecContext(ctx, `UPDATE flow_versions SET valid = true WHERE flow_id = $1 AND version = 1`, v.FlowID)
		return err
	})
	if err != nil {
		return nil, err
	}
	out, err := s.renderer(c, expand{}).flow(ctx, v, 1, 0, &chk.result)
	if err != nil {
		return nil, err
	}
	withResult(&out.FlowResponse, chk)
	return flowReply{out, http.StatusCreated}, nil
}

// withResult fills what the replies of create and update always carry: the problems of the
// definition, and its task order when the task graph is sound.
func withResult(out *platformapi.FlowResponse, chk checked) {
	d, w := details(chk.result), warnings(chk.result)
	out.ValidationErrors, out.ValidationWarnings = &d, &w
	if chk.result.Order != nil {
		names := chk.result.Order
		out.TaskNames = &names
	}
}

// nameOK refuses a display name of blanks only; the contract checks its length.
func nameOK(name string, loc []any) error {
	if strings.TrimSpace(name) == "" {
		return httpx.Invalid(loc, "value_error", "display_name must not be blank")
	}
	return nil
}

// emptyIsNull stores an empty description as no description.
func emptyIsNull(s *string) *string {
	if s == nil || *s == "" {
		return nil
	}
	return s
}

func visibilityOr(v *platformapi.FlowVisibility, def string) string {
	if v == nil || *v == "" {
		return def
	}
	return string(*v)
}

// settingsJSON is the stored form of settings: NULL when omitted or null (the defaults apply).
func settingsJSON(st *platformapi.FlowSettings) (nullRaw, error) {
	if st == nil {
		return nil, nil
	}
	return json.Marshal(st)
}
