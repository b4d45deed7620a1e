package exports_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestExportOfCanceledAndDeletedJobs: canceled jobs export with their status and history; deleted
// jobs are gone from every export; the file downloads in ranges.
func TestExportOfCanceledAndDeletedJobs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var ids []int64
	if err := f.env.DB.Select(&ids, `INSERT INTO jobs (organization_id, app_id, status, processing_state, input)
		SELECT $1, $2, 'SCHEDULED', 'AWAITING_HUMAN', jsonb_build_object('n', g) FROM generate_series(1, 5) g ORDER BY g
		RETURNING id`, f.org, f.app); err != nil {
		t.Fatal(err)
	}
	cancel, err := f.admin.V1.CancelJobsWithResponse(ctx, f.app, &v1api.CancelJobsParams{IdLessThan: new(ids[2])})
	testkit.Expect(t, cancel, err, http.StatusOK)
	del, err := f.admin.V1.DeleteJobsWithResponse(ctx, f.app, &v1api.DeleteJobsParams{IdGreaterThan: new(ids[3])})
	testkit.Expect(t, del, err, http.StatusOK)

	e, canceled := f.export(t, f.admin, v1api.ExportJobResponsesParams{StatusIn: new([]string{"CANCELED"}),
		WithHistory: new(true)})
	lines := strings.Split(strings.TrimSuffix(canceled, "\n"), "\n")
	if *e.JobCount != 2 || len(lines) != 2 || !strings.Contains(lines[0], fmt.Sprintf(`{"id":%d,"status":"CANCELED"`, ids[0])) ||
		!strings.Contains(lines[0], `"to_status":"CANCELED"`) {
		t.Fatalf("canceled jobs exported as %s", canceled)
	}
	all, file := f.export(t, f.admin, v1api.ExportJobResponsesParams{Csv: new(true), FlattenedOutput: new(false)})
	if *all.JobCount != 4 || strings.Count(file, "\r\n") != 5 || strings.Contains(file, fmt.Sprintf("\r\n%d,", ids[4])) {
		t.Fatalf("after deleting one of five jobs: %d jobs\n%s", *all.JobCount, file)
	}

	// A range of the file, as a resumed download asks for it.
	link, err := f.admin.V1.GetJobResponsesLinkWithResponse(ctx, all.Filename, nil)
	testkit.Expect(t, link, err, http.StatusOK)
	req, _ := http.NewRequest(http.MethodGet, link.JSON200.Url, nil)
	req.Header.Set("Range", "bytes=0-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent || string(b) != "id" ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), all.Filename) {
		t.Fatalf("range: %d %q %v", resp.StatusCode, b, resp.Header)
	}
}
