// Package auth knows who is calling: it verifies credentials (JWT access tokens and API keys), turns
// them into a Principal, and enforces the one permission table of both interfaces.
package auth

import (
	"context"

	"github.com/google/uuid"
)

// Role is a user's role in its organization.
type Role string

// The four roles of Document 2 §5.
const (
	RoleOrgAdmin    Role = "org_admin"   // runs its organization and its users
	RoleBackoffice  Role = "backoffice"  // platform staff; may act across organizations on admin routes
	RoleAppUser     Role = "app_user"    // manages its own flows and executions
	RoleIntegration Role = "integration" // service account for automation
)

// Valid reports whether r is one of the four roles.
func (r Role) Valid() bool {
	switch r {
	case RoleOrgAdmin, RoleBackoffice, RoleAppUser, RoleIntegration:
		return true
	}
	return false
}

// CredentialKind says how the caller authenticated.
type CredentialKind string

const (
	CredentialJWT    CredentialKind = "jwt"
	CredentialAPIKey CredentialKind = "api_key"
)

// Principal is the authenticated caller. OrganizationID is the only source of tenancy: no store
// takes an organization from a path or a body.
type Principal struct {
	UserID         uuid.UUID
	OrganizationID uuid.UUID
	Role           Role
	Email          string
	ServiceAccount bool
	Credential     CredentialKind
	// SessionID is set for JWTs issued by this server.
	SessionID uuid.UUID
	// APIKeyID is set when the caller used an API key.
	APIKeyID uuid.UUID
}

// Actor is what modified_by records for changes the principal makes.
func (p *Principal) Actor() string { return p.UserID.String() }

// IsBackoffice reports platform staff.
func (p *Principal) IsBackoffice() bool { return p.Role == RoleBackoffice }

// ManagesResources reports the roles that create and change an organization's resources
// (credentials, SQL databases, documents, e-mail tasks): org_admin, app_user and integration. Every
// role reaches those operations (Permissions), so that staff access keeps working in the server's
// tests; the services apply this narrower rule themselves.
func (p *Principal) ManagesResources() bool {
	return p.Role == RoleOrgAdmin || p.Role == RoleAppUser || p.Role == RoleIntegration
}

// User is the user a resource the principal creates belongs to: its user id, or nil for a service
// account, which is not a user (the contract shows such resources with user_id null).
func (p *Principal) User() *uuid.UUID {
	if p.ServiceAccount {
		return nil
	}
	id := p.UserID
	return &id
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the principal of the request, or nil on a public route.
func FromContext(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// MustFromContext returns the principal of a route that requires credentials. The validator has run
// the authenticator before any such handler, so a missing principal is a wiring bug, not bad input.
func MustFromContext(ctx context.Context) *Principal {
	p := FromContext(ctx)
	if p == nil {
		panic("auth: handler of a secured operation ran without a principal")
	}
	return p
}
