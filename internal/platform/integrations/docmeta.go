package integrations

import (
	"context"
	"fmt"
	"strings"

	"github.com/lib/pq"
)

// describeDocuments lists the organization's document files that an internal_sql_database credential
// reaches: each current table with its columns and rows, as sql_query tasks see them.
func (s *Service) describeDocuments(ctx context.Context, t Target) (string, error) {
	var docs []struct {
		Name    string         `db:"name"`
		Table   string         `db:"current_table_name"`
		Rows    int64          `db:"total_rows"`
		Columns pq.StringArray `db:"columns"`
	}
	if err := s.db.SelectContext(ctx, &docs, `SELECT d.name, d.current_table_name, d.total_rows, r.columns
		FROM documents d JOIN document_revisions r ON r.id = d.current_revision
		WHERE d.organization_id = $1 AND d.database_type = 'csv' ORDER BY d.current_table_name LIMIT 500`, t.Org); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The organization's document tables (%d), read-only to sql_query tasks\n", len(docs))
	for _, d := range docs {
		fmt.Fprintf(&b, "\nTable %s (document %q, %d rows)\n", d.Table, d.Name, d.Rows)
		for _, c := range d.Columns {
			fmt.Fprintf(&b, "  %s text\n", c)
		}
	}
	return b.String(), nil
}
