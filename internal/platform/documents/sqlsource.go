package documents

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/netguard"
	"github.com/loopwork/loopwork/internal/platform/credentials"
	"github.com/loopwork/loopwork/internal/platform/sqldatabases"
)

// errSourceNotUsable is what openSource answers, before connecting, when the document's creator may no
// longer use the document's credential.
var errSourceNotUsable = errors.New("the sql document's credential may no longer be used by the user who created " +
	"the document (it was unshared, or that user's role changed or the user is gone), so it is not read")

// openSource connects to the database of a sql document, through the guard. Every member may read a
// sql document, which makes it a use of its credential on its creator's behalf: the creator's right to
// use the credential is checked now, from the current rows, so unsharing the credential (or the
// creator's losing the right) stops the document's reads at once; a document without a creator (a
// service account's, or one whose creator was removed) reads only through a shared credential.
func (s *Service) openSource(ctx context.Context, d row) (*sql.DB, error) {
	creator := uuid.Nil
	if d.UserID != nil {
		creator = *d.UserID
	}
	usable, err := credentials.Usable(ctx, s.d.DB, d.OrganizationID, creator, []uuid.UUID{*d.CredentialID})
	if err != nil {
		return nil, err
	}
	if !usable[*d.CredentialID] {
		return nil, errSourceNotUsable
	}
	sec, err := s.d.Secrets.Open(ctx, d.OrganizationID, *d.CredentialID)
	if err != nil {
		return nil, err
	}
	return sqldatabases.Open(s.d.Guard, sec)
}

// notUsable is the answer of the columns and rows routes for a sql document whose credential its
// creator may no longer use.
func notUsable(err error) error {
	if errors.Is(err, errSourceNotUsable) {
		return httpx.NewError(http.StatusConflict, "credential_not_usable", "%v", err)
	}
	return err
}

// upstream turns a failure to reach or read the outside database into 400 ssrf_blocked or 502.
func upstream(err error) error {
	if errors.Is(err, netguard.ErrBlocked) {
		return httpx.BadRequest("ssrf_blocked", "the database's host resolves to an address the server does not allow")
	}
	var he *httpx.Error
	if errors.As(err, &he) {
		return he
	}
	return httpx.NewError(http.StatusBadGateway, "upstream_unavailable", "the document's database cannot be read: %v", err)
}

// sqlColumns reads the table's columns without reading its rows.
func (s *Service) sqlColumns(ctx context.Context, d row) ([]string, error) {
	db, err := s.openSource(ctx, d)
	if err != nil {
		return nil, notUsable(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, `SELECT * FROM `+qualified(*d.SourceTable)+` LIMIT 0`)
	if err != nil {
		return nil, upstream(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, upstream(err)
	}
	return cols, nil
}

// sqlRows reads one page of the table in primary-key order (physical order without a key).
func (s *Service) sqlRows(ctx context.Context, d row, pg httpx.Paging, out platformapi.ListDocumentRows200JSONResponse) (platformapi.ListDocumentRowsResponseObject, error) {
	db, err := s.openSource(ctx, d)
	if err != nil {
		return nil, notUsable(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	table := qualified(*d.SourceTable)
	var order string
	err = db.QueryRowContext(ctx, `SELECT coalesce(string_agg(quote_ident(a.attname), ', ' ORDER BY k.i), '')
		FROM pg_index x CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, i)
		JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum
		WHERE x.indrelid = $1::regclass AND x.indisprimary`, table).Scan(&order)
	if err != nil {
		return nil, upstream(err)
	}
	if order != "" {
		order = " ORDER BY " + order
	}
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&out.Total); err != nil {
		return nil, upstream(err)
	}
	rows, err := db.QueryContext(ctx, `SELECT * FROM `+table+order+` LIMIT $1 OFFSET $2`, pg.Limit, pg.Offset())
	if err != nil {
		return nil, upstream(err)
	}
	defer rows.Close()
	if out.Columns, err = rows.Columns(); err != nil {
		return nil, upstream(err)
	}
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, upstream(err)
	}
	for rows.Next() {
		vals := make([]any, len(out.Columns))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, upstream(err)
		}
		for i, v := range vals {
			vals[i] = scalar(v, types[i].DatabaseTypeName())
		}
		out.Rows = append(out.Rows, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, upstream(err)
	}
	return out, nil
}

// scalar makes a database value a JSON scalar: text as a string, numbers (numeric ones too, which the
// driver hands over as text) and booleans as they are, times in RFC 3339, anything else as its text.
func scalar(v any, dbType string) any {
	switch x := v.(type) {
	case nil, bool, int64, float64, string:
		return x
	case []byte:
		if dbType == "NUMERIC" {
			if f, err := strconv.ParseFloat(string(x), 64); err == nil && !math.IsInf(f, 0) {
				return f
			}
		}
		return string(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	default:
		return x
	}
}
