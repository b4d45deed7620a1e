package paging

import (
	"math"
	"testing"
)

// cols is the jobs list's allow-list, the largest one.
var cols = Columns{"id": "j.id", "created_at": "j.created_at", "updated_at": "j.updated_at", "score": "j.score"}

// FuzzNew: whatever the query says, the ORDER BY is an allow-listed expression and a direction, with the
// id after it to break ties; OFFSET and LIMIT are never negative, however far the page is.
func FuzzNew(f *testing.F) {
	f.Add(2, 50, "created_at", "desc", true)
	f.Add(-1, 0, "j.id; DROP TABLE jobs", "DESC", true)
	f.Add(0, -5, "", "asc", false)
	f.Add(1<<40+1, 1<<30, "id", "desc", true)
	f.Fuzz(func(t *testing.T, page, size int, sortBy, orderBy string, given bool) {
		var p Page
		if given {
			p = New(&page, &size, &sortBy, &orderBy, cols)
		} else {
			p = New(nil, nil, nil, nil, cols)
		}
		col, ok := cols[sortBy]
		if !given || !ok {
			col = "j.id"
		}
		dir := "ASC"
		if given && orderBy == "desc" {
			dir = "DESC"
		}
		want := col + " " + dir
		if col != "j.id" {
			want += ", j.id " + dir
		}
		if p.OrderBy() != want {
			t.Fatalf("sortBy %q orderBy %q: ORDER BY %s, want %s", sortBy, orderBy, p.OrderBy(), want)
		}
		end := math.MaxInt // a page past any table: an empty page, not a negative OFFSET
		if p.Page <= math.MaxInt/p.Size {
			end = p.Page * p.Size
		}
		if off := p.Offset(); off != end {
			t.Fatalf("page %d of %d: OFFSET %d", p.Page, p.Size, off)
		}
		if p.Page < 0 || p.Limit() < 1 || (given && page >= 0 && p.Page != page) || (given && size > 0 && p.Limit() != size) {
			t.Fatalf("page %d size %d: %+v", page, size, p)
		}
	})
}
