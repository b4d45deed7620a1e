package flows

import (
	"context"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/credentials"
)

// credentialUse is one parameter of a definition that names a credential.
type credentialUse struct {
	task       int
	param      string
	id         uuid.UUID
	orDocument bool
}

// credentialUses lists the parameters of def's tasks that name credentials, as the task types declare
// them; tasks of unknown types and parameters that are not UUIDs are the validator's to report.
func (s *Service) credentialUses(def map[string]any) []credentialUse {
	list, _ := def["tasks"].([]any)
	var out []credentialUse
	for i, raw := range list {
		task, _ := raw.(map[string]any)
		name, _ := task["type"].(string)
		params, _ := task["parameters"].(map[string]any)
		t, ok := s.registry.Lookup(name)
		if !ok || params == nil {
			continue
		}
		for _, ref := range t.CredentialRefs {
			if id, ok := t.CredentialParams(params)[ref.Param]; ok {
				out = append(out, credentialUse{task: i, param: ref.Param, id: id, orDocument: ref.OrDocument})
			}
		}
	}
	return out
}

// credentialRefusal is the 422 for a definition naming credentials the caller may not use, or nil. A
// credential the caller may not use gets the very item of an id that names nothing, so that saving a
// flow cannot tell whether another user's private credential exists. A parameter that may name a
// document file instead (sql_query's database_id) passes with the id of one of the organization's
// documents. fromBody says the definition came in the request body, whose locations start with "body".
func (s *Service) credentialRefusal(ctx context.Context, db dbx.DBTX, c caller, def map[string]any, fromBody bool) error {
	uses := s.credentialUses(def)
	if len(uses) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(uses))
	for i, u := range uses {
		ids[i] = u.id
	}
	usable, err := credentials.Usable(ctx, db, c.org, c.user, ids)
	if err != nil {
		return err
	}
	docs, err := documentIDs(ctx, db, c.org, uses, usable)
	if err != nil {
		return err
	}
	var items []httpx.ValidationItem
	for _, u := range uses {
		if usable[u.id] || (u.orDocument && docs[u.id]) {
			continue
		}
		loc := []any{"definition", "tasks", u.task, "parameters", u.param}
		if fromBody {
			loc = append([]any{"body"}, loc...)
		}
		msg := "No credential of the organization that you may use has this id (a credential is used by its " +
			"creator, an org_admin, or anyone once it is shared with the organization)."
		if u.orDocument {
			msg = "No SQL database, credential or document file of the organization that you may use has this id " +
				"(a credential is used by its creator, an org_admin, or anyone once it is shared with the organization)."
		}
		items = append(items, httpx.ValidationItem{Loc: loc, Type: "credential_not_found", Msg: msg, Input: u.id.String()})
	}
	if items == nil {
		return nil
	}
	return httpx.InvalidItems(items)
}

// documentIDs answers which of the ids of uses that may name documents, and are not usable credentials,
// are document files of the organization.
func documentIDs(ctx context.Context, db dbx.DBTX, org uuid.UUID, uses []credentialUse, usable map[uuid.UUID]bool) (map[uuid.UUID]bool, error) {
	var ask []string
	for _, u := range uses {
		if u.orDocument && !usable[u.id] {
			ask = append(ask, u.id.String())
		}
	}
	out := map[uuid.UUID]bool{}
	if ask == nil {
		return out, nil
	}
	var found []uuid.UUID
	err := db.SelectContext(ctx, &found, `SELECT id FROM documents WHERE organization_id = $1 AND id = ANY($2::uuid[])`,
		org, pq.StringArray(ask))
	for _, id := range found {
		out[id] = true
	}
	return out, err
}
