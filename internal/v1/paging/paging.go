// Package paging reads the /v1 paging parameters (page from 0, size, sortBy, orderBy) into a safe
// ORDER BY and OFFSET/LIMIT. Sort fields are looked up in a per-route allow-list, never spliced in.
package paging

import (
	"context"
	"fmt"
	"math"

	"github.com/loopwork/loopwork/internal/dbx"
)

// Page is one page of a /v1 list.
type Page struct {
	Page, Size int
	order      string
}

// Columns maps the contract's sortBy values to SQL expressions.
type Columns map[string]string

// New applies the contract's defaults (page 0, size 10, sortBy id, orderBy asc). The validator has
// already checked ranges and enums; an unknown sortBy here means the route's allow-list lags the
// contract, which falls back to the default rather than failing.
func New(page, size *int, sortBy, orderBy *string, cols Columns) Page {
	p := Page{Page: 0, Size: 10}
	if page != nil && *page >= 0 {
		p.Page = *page
	}
	if size != nil && *size > 0 {
		p.Size = *size
	}
	col, ok := "", false
	if sortBy != nil {
		col, ok = cols[*sortBy]
	}
	if !ok {
		col = cols["id"]
	}
	dir := "ASC"
	if orderBy != nil && *orderBy == "desc" {
		dir = "DESC"
	}
	// The id breaks ties, so pages never overlap or skip rows with equal sort keys.
	p.order = fmt.Sprintf("%s %s", col, dir)
	if idCol := cols["id"]; idCol != "" && col != idCol {
		p.order += fmt.Sprintf(", %s %s", idCol, dir)
	}
	return p
}

// OrderBy is the ORDER BY expression.
func (p Page) OrderBy() string { return p.order }

// Offset is the number of rows before the page. The contract bounds the size but not the page, so a
// page far enough out is past the end of any table (an empty page) rather than a product that wraps
// round to a negative OFFSET, which PostgreSQL refuses.
func (p Page) Offset() int {
	if p.Size > 0 && p.Page > math.MaxInt/p.Size {
		return math.MaxInt
	}
	return p.Page * p.Size
}

// Limit is the page size.
func (p Page) Limit() int { return p.Size }

// List runs a paged list over `FROM from WHERE where`: the number of matching rows and one page of
// them, selected by columns and ordered by the page's order.
func List[T any](ctx context.Context, db dbx.DBTX, pg Page, columns, from, where string, args []any) ([]T, int64, error) {
	var total int64
	if err := db.GetContext(ctx, &total, `SELECT count(*) FROM `+from+` WHERE `+where, args...); err != nil {
		return nil, 0, err
	}
	rows := []T{}
	q := `SELECT ` + columns + ` FROM ` + from + ` WHERE ` + where + ` ORDER BY ` + pg.OrderBy() +
		` OFFSET ` + dbx.Placeholder(len(args)+1) + ` LIMIT ` + dbx.Placeholder(len(args)+2)
	if err := db.SelectContext(ctx, &rows, q, append(args[:len(args):len(args)], pg.Offset(), pg.Limit())...); err != nil {
		return nil, 0, err
	}
	return rows, total, nil
}
