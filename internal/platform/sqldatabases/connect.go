package sqldatabases

import (
	"context"
	"database/sql"
	"errors"

	"github.com/loopwork/loopwork/internal/netguard"
	"github.com/loopwork/loopwork/internal/pgdsn"
	"github.com/loopwork/loopwork/internal/platform/credentials"
)

// ErrHostNotAllowed is what Open answers for a database whose host is not among its credential's
// allowed_domains.
var ErrHostNotAllowed = errors.New("the database's host is not among the allowed_domains of its credential")

// Params are the connection settings of a registered database (its credential's data): its connection
// string when one is stored, else its fields, both checked against pgdsn's allow-list. Settings stored
// before the allow-list existed are refused here, at use, with the parameter's name.
func Params(data map[string]any) (pgdsn.Params, error) {
	str := func(k string) string { v, _ := data[k].(string); return v }
	if cs := str("connection_string"); cs != "" {
		return pgdsn.ParseURL(cs)
	}
	port := 5432
	if p, ok := data["port"].(float64); ok {
		port = int(p)
	} else if p, ok := data["port"].(int); ok {
		port = p
	}
	return pgdsn.Fields(str("host"), port, str("database"), str("username"), str("password"), str("sslmode"))
}

// Open returns a handle on a registered database: its settings rebuilt from the allow-list (libpq's
// default sslmode prefer when none is given), refused unless its host is one the credential may be sent
// to, and every connection dialled through the guard. The handle holds at most one connection; close it
// after use.
func Open(guard *netguard.Guard, sec credentials.Secret) (*sql.DB, error) {
	p, err := Params(sec.Data)
	if err != nil {
		return nil, err
	}
	if !netguard.DomainAllowed(sec.AllowedDomains, p.Host) {
		return nil, ErrHostNotAllowed
	}
	return p.Open(netguard.Dialer{G: guard})
}

// ping connects, runs SELECT 1 and reads the server's version.
func ping(ctx context.Context, db *sql.DB) (string, error) {
	var one int
	if err := db.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
		return "", err
	}
	var version string
	err := db.QueryRowContext(ctx, `SHOW server_version`).Scan(&version)
	return version, err
}
