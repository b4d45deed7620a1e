package documents

import (
	"context"
	"database/sql"
	"strings"
	"testing"
)

// TestImportFailureHidesConnections: what an import that could not reach its database records says
// nothing of the connection (host, port, user, password, database), whichever driver failed.
func TestImportFailureHidesConnections(t *testing.T) {
	t.Parallel()
	const dsn = "postgres://someone:hunter2@127.0.0.1:1/secretdb?sslmode=disable&connect_timeout=2"
	_, pgxErr := pgxConnect(context.Background(), dsn)
	db, _ := sql.Open("postgres", dsn)
	defer db.Close()
	pqErr := db.Ping()
	for _, err := range []error{pgxErr, pqErr} {
		if err == nil {
			t.Fatal("connected to a closed port")
		}
		msg := importFailure(err)
		if !strings.Contains(msg, "could not be reached") {
			t.Errorf("%v: %s", err, msg)
		}
		for _, leak := range []string{"someone", "hunter2", "127.0.0.1", ":1", "secretdb"} {
			if strings.Contains(msg, leak) {
				t.Errorf("%q names %q", msg, leak)
			}
		}
	}
}
