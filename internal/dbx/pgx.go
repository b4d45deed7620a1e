package dbx

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// pqOnly are connection settings only lib/pq (the pool's driver) knows: pgx would send them to the
// server as run-time parameters, which it refuses.
var pqOnly = []string{"binary_parameters", "disable_prepared_binary_result"}

// PgxDSN is dsn without the settings only lib/pq knows, for the connections that speak pgx: the queue's
// listener and the exports' readers.
func PgxDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		for _, k := range pqOnly {
			q.Del(k)
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	var kept []string
	for _, f := range strings.Fields(dsn) {
		if k, _, _ := strings.Cut(f, "="); !slices.Contains(pqOnly, k) {
			kept = append(kept, f)
		}
	}
	return strings.Join(kept, " ")
}

// ConnectPgx opens one pgx connection to the database of dsn, with the session settings given (run-time
// parameters, such as TimeZone, sent when it connects).
func ConnectPgx(ctx context.Context, dsn string, settings map[string]string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(PgxDSN(dsn))
	if err != nil {
		return nil, err
	}
	for k, v := range settings {
		cfg.RuntimeParams[k] = v
	}
	return pgx.ConnectConfig(ctx, cfg)
}
