package documents

import (
	"context"
	"database/sql"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/lib/pq"
	"github.com/loopwork/loopwork/internal/dbx"
)

// dsn is the documents cluster's URL naming another database, and another user when user is not empty.
func (s *Service) dsn(database, user, password string) string {
	u, err := url.Parse(s.d.DocumentsURL)
	if err != nil { // checked by the configuration already
		return ""
	}
	u.Path = "/" + database
	u.RawPath = ""
	if user != "" {
		u.User = url.UserPassword(user, password)
	}
	q := u.Query()
	q.Del("search_path")
	q.Del("options")
	u.RawQuery = q.Encode()
	return u.String()
}

// admin is the pool of the documents cluster's own database: where roles and databases are created.
func (s *Service) admin() (*sql.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.adminDB == nil {
		db, err := sql.Open("postgres", s.d.DocumentsURL)
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(2)
		db.SetConnMaxIdleTime(time.Minute)
		s.adminDB = db
	}
	return s.adminDB, nil
}

// owner is a small pool of the organization's database as the server's own user, which owns it and
// the tables it imports there: for imports, pages of rows, and deletes. Idle connections close after
// a minute, so organizations that are not busy hold none.
func (s *Service) owner(t tenantDB) (*sql.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if db, ok := s.owners[t.Database]; ok {
		return db, nil
	}
	db, err := sql.Open("postgres", s.dsn(t.Database, "", ""))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(1)
	db.SetConnMaxIdleTime(time.Minute)
	s.owners[t.Database] = db
	return db, nil
}

// connectOwner opens one pgx connection to the organization's database as the server's user, for COPY.
func (s *Service) connectOwner(ctx context.Context, t tenantDB) (*pgx.Conn, error) {
	return pgxConnect(ctx, s.dsn(t.Database, "", ""))
}

func pgxConnect(ctx context.Context, dsn string) (*pgx.Conn, error) {
	return dbx.ConnectPgx(ctx, dsn, nil)
}

// usedSQL measures the organization's tables on disk, with their indexes and TOAST, except the one
// named $1 (the table an import replaces, dropped when the import ends).
const usedSQL = `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
	JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> $1`

// used measures the organization's tables (0 before it has a database).
func (s *Service) used(ctx context.Context, t tenantDB, except string) (int64, error) {
	db, err := s.owner(t)
	if err != nil {
		return 0, err
	}
	var n int64
	err = db.QueryRowContext(ctx, usedSQL, except).Scan(&n)
	return n, err
}

// confineHome keeps the organizations' roles out of loopwork's own database when documents live on
// its cluster. Every role of a cluster may connect to a database whose PUBLIC has CONNECT (the default),
// so CONNECT is granted to every login role there is other than the organizations' (so that nothing
// that connected before stops working) and revoked from PUBLIC. Only the database's owner or a superuser
// may do that; another user leaves it as it is, with a warning that says what to run instead.
func (s *Service) confineHome(ctx context.Context) error {
	if !s.d.OwnCluster {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.confined {
		return nil
	}
	var st struct {
		Name   string `db:"datname"`
		Owner  bool   `db:"owner"`
		Public bool   `db:"public"`
	}
	if err := s.d.DB.GetContext(ctx, &st, `SELECT datname, pg_has_role(current_user, datdba, 'USAGE') AS owner,
		datacl IS NULL OR EXISTS (SELECT FROM aclexplode(datacl) a WHERE a.grantee = 0 AND a.privilege_type = 'CONNECT') AS public
		FROM pg_database WHERE datname = current_database()`); err != nil {
		return err
	}
	if !st.Public {
		s.confined = true
		return nil
	}
	if !st.Owner {
		s.d.Logger.Warn("the organizations' document roles may connect to loopwork's database: its owner should run "+
			"REVOKE CONNECT ON DATABASE ... FROM PUBLIC (granting CONNECT to the roles that need it)", "database", st.Name)
		s.confined = true
		return nil
	}
	var roles []string
	if err := s.d.DB.SelectContext(ctx, &roles, `SELECT rolname FROM pg_roles WHERE rolcanlogin AND rolname NOT LIKE 'pg\_%'
		AND rolname NOT LIKE 'lwt\_%' AND rolname NOT LIKE 'loopwork\_org\_%'`); err != nil {
		return err
	}
	db := pq.QuoteIdentifier(st.Name)
	stmts := []string{`GRANT CONNECT ON DATABASE ` + db + ` TO CURRENT_USER`}
	for _, r := range roles {
		stmts = append(stmts, `GRANT CONNECT ON DATABASE `+db+` TO `+pq.QuoteIdentifier(r))
	}
	stmts = append(stmts, `REVOKE CONNECT ON DATABASE `+db+` FROM PUBLIC`)
	if _, err := s.d.DB.ExecContext(ctx, strings.Join(stmts, "; ")); err != nil {
		return err
	}
	s.confined = true
	return nil
}

// dropTable drops a table the organization no longer has a document for. It runs after loopwork's
// commit, in another database: should it fail, the table stays, counted in the quota, until an import
// names the same table and replaces it.
func (s *Service) dropTable(ctx context.Context, org uuid.UUID, table string) {
	t, ok, err := s.existing(ctx, org)
	if err == nil && ok {
		var db *sql.DB
		if db, err = s.owner(t); err == nil {
			_, err = db.ExecContext(ctx, `DROP TABLE IF EXISTS `+pq.QuoteIdentifier(table))
		}
	}
	if err != nil {
		s.d.Logger.Warn("a deleted document's table was not dropped", "error", err)
	}
}
