package integrations

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loopwork/loopwork/internal/netguard"
	"github.com/loopwork/loopwork/internal/platform/sqldatabases"
)

// maxColumns bounds a description: past it the text says how much was left out.
const maxColumns = 2000

// describeSQL lists the tables of a PostgreSQL database and their columns, connecting through the
// guard with the credential's login, in a read-only transaction with a 10-second bound.
func describeSQL(ctx context.Context, t Target) (string, error) {
	d := t.Secret.Data
	db, err := sqldatabases.Open(t.Guard, *t.Secret)
	if err != nil {
		return "", fmt.Errorf("%w: %s", ErrUpstream, redact(err, d))
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, `SELECT table_schema, table_name, column_name, data_type
		FROM information_schema.columns
		WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_schema NOT LIKE 'pg\_toast%'
		ORDER BY table_schema, table_name, ordinal_position LIMIT $1`, maxColumns+1)
	if err != nil {
		if errors.Is(err, netguard.ErrBlocked) {
			return "", err
		}
		return "", fmt.Errorf("%w: %s", ErrUpstream, redact(err, d))
	}
	defer rows.Close()
	var b strings.Builder
	host, _ := d["host"].(string)
	fmt.Fprintf(&b, "PostgreSQL database %q on %s\n", strOf(d["database"]), host)
	last, n := "", 0
	for rows.Next() {
		var schema, table, column, typ string
		if err := rows.Scan(&schema, &table, &column, &typ); err != nil {
			return "", err
		}
		if n++; n > maxColumns {
			fmt.Fprintf(&b, "(more columns not shown)\n")
			break
		}
		if name := schema + "." + table; name != last {
			fmt.Fprintf(&b, "\nTable %s\n", name)
			last = name
		}
		fmt.Fprintf(&b, "  %s %s\n", column, typ)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("%w: %s", ErrUpstream, redact(err, d))
	}
	if last == "" {
		b.WriteString("\nNo tables.\n")
	}
	return b.String(), nil
}

func strOf(v any) string { s, _ := v.(string); return s }

// redact removes the credential's secret values from a driver's message, should it ever quote them.
func redact(err error, data map[string]any) string {
	msg := err.Error()
	for k, v := range data {
		if s, ok := v.(string); ok && s != "" && k != "host" && k != "database" && k != "username" {
			msg = strings.ReplaceAll(msg, s, "[redacted]")
		}
	}
	return msg
}
