package documents

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/dbx"
)

// An organization's document tables live in a database of its own, on the documents cluster, read by a
// login role of its own. What tenant SQL can reach is then decided by PostgreSQL itself: advisory
// locks, NOTIFY channels, large objects and catalogs are per database, CONNECT on the database is the
// role's alone, and the role may read the tables loopwork imports there and do nothing else. The names
// are random (rolePrefix and 24 hex digits), so pg_database and pg_roles, which every role of a cluster
// can read, reveal no organization's id.
type tenantDB struct {
	Org            uuid.UUID
	Database, Role string
	Password       string
}

// rolePrefix starts the name of every document role and database, so loopwork's own database can
// grant CONNECT to every other role of its cluster and to none of these.
const rolePrefix = "lwt_"

func randomName() string {
	b := make([]byte, 12)
	rand.Read(b)
	return rolePrefix + hex.EncodeToString(b)
}

// errPrivilege is what the documents cluster answers when the server's user may not create roles or
// databases there; its text tells the operator what to grant.
var errPrivilege = errors.New("the documents database server refused to create the organization's database and role: " +
	"the server's database user needs CREATEDB and CREATEROLE on the cluster of LOOPWORK_DOCUMENTS_DATABASE_URL " +
	"(DATABASE_URL when that is unset)")

type databaseRow struct {
	Database string `db:"database_name"`
	Role     string `db:"role_name"`
	Sealed   []byte `db:"sealed_password"`
	Ready    bool   `db:"ready"`
}

// existing returns the organization's database, if it has one already.
func (s *Service) existing(ctx context.Context, org uuid.UUID) (tenantDB, bool, error) {
	var r databaseRow
	err := s.d.DB.GetContext(ctx, &r, `SELECT database_name, role_name, sealed_password, ready FROM document_databases
		WHERE organization_id = $1`, org)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) || err == nil && !r.Ready {
		return tenantDB{}, false, nil
	}
	if err != nil {
		return tenantDB{}, false, err
	}
	return s.unseal(org, r)
}

func (s *Service) unseal(org uuid.UUID, r databaseRow) (tenantDB, bool, error) {
	pw, err := s.d.Box.Open(r.Sealed, org[:])
	if err != nil {
		return tenantDB{}, false, fmt.Errorf("open the password of the organization's role: %w", err)
	}
	return tenantDB{Org: org, Database: r.Database, Role: r.Role, Password: string(pw)}, true, nil
}

// ensureDatabase returns the organization's database, creating it (and its role) the first time, and
// first moving the tables an earlier version kept in a schema of loopwork's own database. A session
// advisory lock of loopwork's database makes concurrent callers create it once.
func (s *Service) ensureDatabase(ctx context.Context, org uuid.UUID) (tenantDB, error) {
	if t, ok, err := s.existing(ctx, org); ok || err != nil {
		if err == nil && s.hasLegacy(ctx, org) {
			return t, s.withOrgLock(ctx, org, func() error { return s.moveLegacy(ctx, t) })
		}
		return t, err
	}
	var t tenantDB
	err := s.withOrgLock(ctx, org, func() error {
		var err error
		if t, err = s.create(ctx, org); err != nil {
			return err
		}
		return s.moveLegacy(ctx, t)
	})
	return t, err
}

// withOrgLock runs f holding the organization's document lock, on a connection of loopwork's pool
// that is given back unlocked whatever f does.
func (s *Service) withOrgLock(ctx context.Context, org uuid.UUID, f func() error) error {
	conn, err := s.d.DB.Connx(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(hashtextextended('document_database:' || $1::text, 0))`, org); err != nil {
		return err
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtextextended('document_database:' || $1::text, 0))`, org) //nolint:errcheck
	return f()
}

// create makes the organization's role and database, or finishes what an earlier call began. The
// names and password are recorded first, so each step can be repeated with them.
func (s *Service) create(ctx context.Context, org uuid.UUID) (tenantDB, error) {
	var r databaseRow
	err := s.d.DB.GetContext(ctx, &r, `SELECT database_name, role_name, sealed_password, ready FROM document_databases
		WHERE organization_id = $1`, org)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		raw := make([]byte, 24)
		rand.Read(raw)
		r = databaseRow{Database: randomName(), Role: randomName()}
		if r.Sealed, err = s.d.Box.Seal([]byte(hex.EncodeToString(raw)), org[:]); err != nil {
			return tenantDB{}, err
		}
		_, err = s.d.DB.ExecContext(ctx, `INSERT INTO document_databases (organization_id, database_name, role_name, sealed_password)
			VALUES ($1, $2, $3, $4)`, org, r.Database, r.Role, r.Sealed)
	}
	if err != nil {
		return tenantDB{}, err
	}
	t, _, err := s.unseal(org, r)
	if err != nil || r.Ready {
		return t, err
	}
	if err := s.confineHome(ctx); err != nil {
		return tenantDB{}, err
	}
	if err := s.createRole(ctx, t); err != nil {
		return tenantDB{}, privilege(err)
	}
	if err := s.createDatabase(ctx, t); err != nil {
		return tenantDB{}, privilege(err)
	}
	_, err = s.d.DB.ExecContext(ctx, `UPDATE document_databases SET ready = true WHERE organization_id = $1`, org)
	return t, err
}

// createRole creates the role, or resets one left by a creation that failed half-way. Its password
// is sent as a SCRAM verifier, so it never appears in a statement log; its settings bound what one
// session of it can hold, whatever a statement asks (loopwork also sets the statement timeout inside
// every transaction it runs there).
func (s *Service) createRole(ctx context.Context, t tenantDB) error {
	admin, err := s.admin()
	if err != nil {
		return err
	}
	var exists bool
	if err := admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = $1)`, t.Role).Scan(&exists); err != nil {
		return err
	}
	verb := "CREATE"
	if exists {
		verb = "ALTER"
	}
	role := pq.QuoteIdentifier(t.Role)
	for _, q := range []string{
		fmt.Sprintf(`%s ROLE %s LOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS CONNECTION LIMIT %d PASSWORD %s`,
			verb, role, s.d.Limits.Connections, pq.QuoteLiteral(scramVerifier(t.Password))),
		fmt.Sprintf(`ALTER ROLE %s SET statement_timeout = %d`, role, s.d.Limits.StatementTimeout.Milliseconds()),
		fmt.Sprintf(`ALTER ROLE %s SET idle_in_transaction_session_timeout = %d`, role, time.Minute.Milliseconds()),
		`ALTER ROLE ` + role + ` SET default_transaction_read_only = on`,
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// createDatabase creates the database from template0 (so nothing an operator installed in template1,
// such as dblink, comes with it) and leaves it to the role alone: CONNECT for the role only, no
// temporary tables, no objects of its own in the public schema, and SELECT on every table loopwork
// creates there.
func (s *Service) createDatabase(ctx context.Context, t tenantDB) error {
	admin, err := s.admin()
	if err != nil {
		return err
	}
	var exists bool
	if err := admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)`, t.Database).Scan(&exists); err != nil {
		return err
	}
	db, role := pq.QuoteIdentifier(t.Database), pq.QuoteIdentifier(t.Role)
	if !exists {
		if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+db+` TEMPLATE template0`); err != nil {
			return err
		}
	}
	owner, err := s.owner(t)
	if err != nil {
		return err
	}
	for _, q := range []string{
		`REVOKE ALL ON DATABASE ` + db + ` FROM PUBLIC`,
		`GRANT CONNECT ON DATABASE ` + db + ` TO ` + role,
		`REVOKE ALL ON SCHEMA public FROM PUBLIC`,
		`GRANT USAGE ON SCHEMA public TO ` + role,
		`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO ` + role,
	} {
		if _, err := owner.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// privilege names what to grant when the cluster refused to create a role or a database.
func privilege(err error) error {
	var pe *pq.Error
	if errors.As(err, &pe) && pe.Code == "42501" {
		return errPrivilege
	}
	return err
}

// openAsTenant opens the organization's database as its role: what its sql_query tasks run on.
func (s *Service) openAsTenant(t tenantDB) (*sql.DB, error) {
	db, err := sql.Open("postgres", s.dsn(t.Database, t.Role, t.Password))
	if err != nil {
		return nil, err
	}
	// One connection, closed as soon as it is given back: nothing a statement leaves in its session
	// (advisory locks, settings, prepared statements) outlives the task that ran it.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(0)
	return db, nil
}
