package documents

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/dbx"
)

// An organization's document tables live in a schema of its own, readable by a login role of its
// own and by nobody else. Queries of the organization's tasks log in as that role, so what they can
// read is decided by PostgreSQL's privileges: the role can SET ROLE to nothing, owns nothing, and was
// granted USAGE on its schema and SELECT on the tables loopwork imports there — not loopwork's tables
// nor another organization's schema.
type orgSchema struct {
	Schema, Role, Password string
}

func schemaName(org uuid.UUID) string { return "org_" + strings.ReplaceAll(org.String(), "-", "") }
func roleName(org uuid.UUID) string   { return "loopwork_" + schemaName(org) }

// ensureSchema returns the organization's schema and role, creating them the first time (the server's
// database user needs CREATEROLE for that).
func (s *Service) ensureSchema(ctx context.Context, org uuid.UUID) (orgSchema, error) {
	var sealed []byte
	err := s.d.DB.GetContext(ctx, &sealed, `SELECT sealed_password FROM document_schemas WHERE organization_id = $1`, org)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		sealed, err = s.createSchema(ctx, org)
	}
	if err != nil {
		return orgSchema{}, err
	}
	pw, err := s.d.Box.Open(sealed, org[:])
	if err != nil {
		return orgSchema{}, fmt.Errorf("open the password of the organization's role: %w", err)
	}
	return orgSchema{Schema: schemaName(org), Role: roleName(org), Password: string(pw)}, nil
}

func (s *Service) createSchema(ctx context.Context, org uuid.UUID) ([]byte, error) {
	var sealed []byte
	err := dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('document_schema:' || $1::text, 0))`, org); err != nil {
			return err
		}
		err := tx.GetContext(ctx, &sealed, `SELECT sealed_password FROM document_schemas WHERE organization_id = $1`, org)
		if err == nil || !errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
			return err
		}
		raw := make([]byte, 24)
		rand.Read(raw)
		pw := hex.EncodeToString(raw)
		if sealed, err = s.d.Box.Seal([]byte(pw), org[:]); err != nil {
			return err
		}
		schema, role := pq.QuoteIdentifier(schemaName(org)), pq.QuoteIdentifier(roleName(org))
		var exists bool
		if err := tx.GetContext(ctx, &exists, `SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = $1)`, roleName(org)); err != nil {
			return err
		}
		verb := "CREATE"
		if exists { // left by an earlier database on the same cluster
			verb = "ALTER"
		}
		// The password is sent as a SCRAM verifier, so it never appears in a statement log.
		stmts := []string{
			fmt.Sprintf(`%s ROLE %s LOGIN NOINHERIT NOCREATEDB NOCREATEROLE CONNECTION LIMIT 20 PASSWORD %s`, verb, role, pq.QuoteLiteral(scramVerifier(pw))),
			`CREATE SCHEMA IF NOT EXISTS ` + schema,
			`REVOKE ALL ON SCHEMA ` + schema + ` FROM PUBLIC`,
			`GRANT USAGE ON SCHEMA ` + schema + ` TO ` + role,
			`ALTER DEFAULT PRIVILEGES IN SCHEMA ` + schema + ` GRANT SELECT ON TABLES TO ` + role,
		}
		for _, q := range stmts {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("create the organization's schema and role: %w", err)
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO document_schemas (organization_id, schema_name, role_name, sealed_password)
			VALUES ($1, $2, $3, $4)`, org, schemaName(org), roleName(org), sealed)
		return err
	})
	return sealed, err
}

// scramVerifier is what PostgreSQL stores for a SCRAM-SHA-256 password (RFC 5802, 4096 iterations).
func scramVerifier(password string) string {
	salt := make([]byte, 16)
	rand.Read(salt)
	salted, _ := pbkdf2.Key(sha256.New, password, salt, 4096, 32)
	mac := func(key []byte, msg string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	stored := sha256.Sum256(mac(salted, "Client Key"))
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$4096:%s$%s:%s", b64(salt), b64(stored[:]), b64(mac(salted, "Server Key")))
}

// Connect opens the organization's document tables as the organization's role, its schema first on
// the search path: what sql_query tasks over documents run on. The caller closes the handle.
func (s *Service) Connect(ctx context.Context, org uuid.UUID) (*sql.DB, error) {
	o, err := s.ensureSchema(ctx, org)
	if err != nil {
		return nil, err
	}
	dsn := s.d.DatabaseURL
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.User = url.UserPassword(o.Role, o.Password)
		q := u.Query()
		q.Set("search_path", o.Schema)
		u.RawQuery = q.Encode()
		dsn = u.String()
	} else {
		dsn += fmt.Sprintf(" user=%s password=%s search_path=%s", o.Role, o.Password, o.Schema)
	}
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(2)
	return db, nil
}

// splitTable splits "schema.table" or "table" for quoting.
func splitTable(name string) (schema, table string, err error) {
	schema, table, found := strings.Cut(name, ".")
	if !found {
		schema, table = "", name
	}
	if table == "" || (found && schema == "") || strings.ContainsRune(name, 0) {
		return "", "", errors.New("a table name is table or schema.table")
	}
	return schema, table, nil
}

// qualified quotes an outside table name for SQL.
func qualified(name string) string {
	schema, table, _ := splitTable(name)
	if schema == "" {
		return pq.QuoteIdentifier(table)
	}
	return pq.QuoteIdentifier(schema) + "." + pq.QuoteIdentifier(table)
}

// orgTable is a table of the organization's schema, quoted.
func orgTable(org uuid.UUID, table string) string {
	return pq.QuoteIdentifier(schemaName(org)) + "." + pq.QuoteIdentifier(table)
}

func dropTable(ctx context.Context, tx dbx.DBTX, org uuid.UUID, table string) error {
	_, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS `+orgTable(org, table))
	return err
}
