package sqldatabases

import (
	"context"
	"database/sql"
	"net"
	"net/url"
	"strconv"

	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/netguard"
)

// Open returns a handle on a registered database (its credential's data): the connection string when
// one is stored, else a URL from the fields with libpq's default sslmode prefer; every connection is
// dialled through the guard. The handle holds at most one connection; close it after use.
func Open(guard *netguard.Guard, data map[string]any) (*sql.DB, error) {
	conn, err := pq.NewConnector(dsn(data))
	if err != nil {
		return nil, err
	}
	conn.Dialer(netguard.Dialer{G: guard})
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	return db, nil
}

func dsn(d map[string]any) string {
	str := func(k string) string { v, _ := d[k].(string); return v }
	if cs := str("connection_string"); cs != "" {
		return withDefault(cs, "connect_timeout", "10")
	}
	port := 5432
	if p, ok := d["port"].(float64); ok {
		port = int(p)
	}
	u := url.URL{Scheme: "postgres", Host: net.JoinHostPort(str("host"), strconv.Itoa(port)), Path: "/" + str("database"),
		User: url.UserPassword(str("username"), str("password"))}
	q := url.Values{"connect_timeout": {"10"}, "sslmode": {"prefer"}}
	if m := str("sslmode"); m != "" {
		q.Set("sslmode", m)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func withDefault(cs, key, value string) string {
	u, err := url.Parse(cs)
	if err != nil {
		return cs
	}
	q := u.Query()
	if q.Get(key) == "" {
		q.Set(key, value)
	}
	u.RawQuery = q.Encode()
	return u.String()
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
