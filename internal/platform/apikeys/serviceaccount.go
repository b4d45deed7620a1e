package apikeys

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
)

// serviceAccountDomain is the domain of service accounts' synthetic e-mail addresses. The .invalid
// top-level domain is reserved (RFC 2606), so no mail to these addresses can ever be delivered, and no
// person's real address can collide with one.
const serviceAccountDomain = "service-accounts.loopwork.invalid"

// serviceAccountLastName completes the name of a service account, whose first name is the key's name,
// so that user lists tell it apart from a person at a glance.
const serviceAccountLastName = "(service account)"

// maxNameChars is the users table's limit on first and last names.
const maxNameChars = 100

// createServiceAccount inserts a user that is a service account: role integration, no password (so it
// can never sign in), named after the key that is created for it.
func createServiceAccount(ctx context.Context, db dbx.DBTX, org uuid.UUID, keyName, actor string) (uuid.UUID, error) {
	id := uuid.New()
	email := "svc-" + id.String() + "@" + serviceAccountDomain
	var got uuid.UUID
	err := db.GetContext(ctx, &got, `
		INSERT INTO users (id, organization_id, email, first_name, last_name, role, is_service_account, modified_by)
		VALUES ($1, $2, $3, $4, $5, $6, true, $7)
		RETURNING id`, id, org, email, firstName(keyName), serviceAccountLastName, auth.RoleIntegration, actor)
	return got, dbx.Translate(err)
}

// firstName is the key's name trimmed and cut to the column's limit on a character boundary. Key names
// may be up to 255 characters, names only 100, and the name must not be blank.
func firstName(keyName string) string {
	s := strings.TrimSpace(keyName)
	if utf8.RuneCountInString(s) > maxNameChars {
		s = strings.TrimSpace(string([]rune(s)[:maxNameChars]))
	}
	if s == "" {
		s = "Service account"
	}
	return s
}
