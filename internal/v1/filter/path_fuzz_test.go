package filter_test

import (
	"database/sql"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/filter"
)

// FuzzPath: a JSON path is accepted exactly when it is written in braces without an empty segment, and
// its segments written back in braces are the path again; the value Lookup finds at it in a document (what
// the measurer compares) is the value PostgreSQL's #> finds (what the filters compare), checked against
// the server when there is one, and a path through the value found continues from it.
func FuzzPath(f *testing.F) {
	db, _ := withDB(f)
	for _, c := range [][2]string{
		{"{a.b.0}", `{"a":{"b":["x","y"]}}`}, {"{}", `[1,2]`}, {"{-1}", `[1,2,3]`}, {"{-4}", `[1,2,3]`},
		{"{1abc}", `[1,2,3]`}, {"{0x1}", `[1,2,3]`}, {"{+1}", `[1,2,3]`}, {"{ 1}", `[1,2,3]`}, {"{1 }", `[1,2,3]`},
		{"{01}", `[1,2,3]`}, {"{2147483648}", `[1]`}, {"{a..b}", `{}`}, {"a.b", `{}`}, {"{a}", `{"a":null}`},
		{"{name}", `{"name":"Ann"}`}, {"{0.k}", `[{"k":{"z":[true]}}]`}, {"{k.0}", `{"k":"text"}`}, {"{", `1`},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, p, doc string) {
		segs, err := filter.ParsePath(p)
		inner, braced := strings.CutPrefix(p, "{")
		inner, closed := strings.CutSuffix(inner, "}")
		wellFormed := braced && closed && len(p) >= 2 && (inner == "" || !strings.Contains("."+inner+".", ".."))
		if (err == nil) != wellFormed {
			t.Fatalf("ParsePath(%q): %v", p, err)
		}
		if err != nil {
			return
		}
		if back := "{" + strings.Join(segs, ".") + "}"; back != p {
			t.Fatalf("ParsePath(%q) = %q, written back as %q", p, segs, back)
		}
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil {
			return
		}
		got := filter.Lookup(v, segs)
		for i := range segs {
			if head := filter.Lookup(v, segs[:i]); head != nil && !reflect.DeepEqual(filter.Lookup(head, segs[i:]), got) {
				t.Fatalf("%s in %s: %v, but %v from %q", p, doc, got, filter.Lookup(head, segs[i:]), segs[:i])
			}
		}
		if db == nil || !text(p, doc) || !httpx.JSONStorable([]byte(doc)) {
			return
		}
		var pg sql.NullString
		if err := db.Get(&pg, `SELECT ($1::jsonb #> $2::text[])::text`, doc, pqArray(segs)); err != nil {
			t.Fatalf("%s in %s: %v", p, doc, err)
		}
		var want any
		if pg.Valid {
			if err := json.Unmarshal([]byte(pg.String), &want); err != nil {
				return // a number beyond float64: Go and PostgreSQL read it differently anyway
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s in %s: Lookup finds %v, PostgreSQL %v", p, doc, got, pg.String)
		}
	})
}
