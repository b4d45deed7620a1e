package credentials

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/netguard"
)

// The right to use a credential, in one place: its creator, an active org_admin of its organization,
// and, once it is shared, every member. It is written as SQL so that the check at save time and the
// check before each attempt read the same rule from the same rows (the user's current role and
// state, the credential's current sharing); $user is the placeholder of the user's id.
func usableBy(user string) string {
	return `(c.shared OR EXISTS (SELECT 1 FROM users u WHERE u.id = ` + user + ` AND u.organization_id = c.organization_id
		AND u.is_active AND (u.role = 'org_admin' OR c.user_id = u.id)))`
}

// UsableBy is the SQL condition under which the user whose id is the placeholder user (for example
// "$2") may use the credential aliased c, for queries that list what a user may pick.
func UsableBy(user string) string { return usableBy(user) }

// Usable answers which of ids are credentials of org that user may use. An id missing from the answer is
// either not a credential of the organization or one the user may not use; callers answer both the same.
func Usable(ctx context.Context, db dbx.DBTX, org, user uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	out := map[uuid.UUID]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	strs := make([]string, len(ids))
	for i, id := range ids {
		strs[i] = id.String()
	}
	var found []uuid.UUID
	err := db.SelectContext(ctx, &found, `SELECT c.id FROM credentials c
		WHERE c.organization_id = $1 AND c.id = ANY($2::uuid[]) AND `+usableBy("$3"), org, pq.StringArray(strs), user)
	for _, id := range found {
		out[id] = true
	}
	return out, err
}

// ErrNotUsable is what UsableInExecution answers for a credential the user who saved the execution's
// flow version may not use.
var ErrNotUsable = errors.New("credentials: not usable")

// UsableInExecution checks the right to use credential id for an attempt of execution: the right of the
// user who saved the definition of the flow version the execution runs (saved_by: a later change of the
// version's name or settings does not change whose right that is). It answers ErrNotFound when id is not a credential
// of the organization (it may be something else, a document file), ErrNotUsable when that user may not
// use it (or no user saved the version), and nil when the attempt may use it.
func (o *Opener) UsableInExecution(ctx context.Context, org, execution, id uuid.UUID) error {
	var ok bool
	err := o.db.GetContext(ctx, &ok, `SELECT `+usableBy(`(SELECT CASE WHEN v.saved_by ~ '^[0-9a-f-]{36}$'
			THEN v.saved_by::uuid END
		FROM flow_executions e JOIN flow_versions v ON v.flow_id = e.flow_id AND v.version = e.flow_version
		WHERE e.id = $3 AND e.organization_id = $1)`)+`
		FROM credentials c WHERE c.organization_id = $1 AND c.id = $2`, org, id, execution)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotUsable
	}
	return nil
}

// domainsOf is the stored form of allowed_domains: lower case, without a trailing dot, each once, in
// the order given. nil (not given) stays nil.
func domainsOf(in *[]string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, 0, len(*in))
	seen := map[string]bool{}
	for _, d := range *in {
		d = strings.ToLower(strings.TrimSuffix(d, "."))
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

const anyHost = netguard.AnyHost
