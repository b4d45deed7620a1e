package exports_test

import (
	"encoding/csv"
	"strconv"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/v1api"
)

// TestFlattenedCSVOfManySegments: a flattened CSV's rows, written a segment at a time on every core,
// come out whole and in id order across segments.
func TestFlattenedCSVOfManySegments(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const n = 20_000 // two segments and a part
	f.env.DB.MustExec(`INSERT INTO jobs (organization_id, app_id, status, processing_state, input, response)
		SELECT $1, $2, 'COMPLETED', 'DONE', jsonb_build_object('n', g),
			CASE WHEN g % 3 = 0 THEN jsonb_build_object('label', 'l' || g, 'extra', jsonb_build_object('k', g)) END
		FROM generate_series(1, $3) g ORDER BY g`, f.org, f.app, n)
	_, file := f.export(t, f.admin, v1api.ExportJobResponsesParams{Csv: new(true)})
	rows, err := csv.NewReader(strings.NewReader(file)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n+1 {
		t.Fatalf("%d rows, want a header and %d", len(rows), n)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, h := range []string{"id", "input.n", "response.label", "response.extra.k"} {
		if _, ok := col[h]; !ok {
			t.Fatalf("no column %s in %v", h, rows[0])
		}
	}
	last := int64(0)
	for i, r := range rows[1:] {
		id, _ := strconv.ParseInt(r[col["id"]], 10, 64)
		g := strconv.Itoa(i + 1)
		want := ""
		if (i+1)%3 == 0 {
			want = "l" + g
		}
		if id <= last || r[col["input.n"]] != g || r[col["response.label"]] != want || len(r) != len(rows[0]) {
			t.Fatalf("row %d: %v", i+1, r)
		}
		last = id
	}
}
