package exports_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestServedAsLinked: the file is served with the content type its link promises, for JSON Lines as for
// CSV (a JSON Lines file was served as application/octet-stream).
func TestServedAsLinked(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.seedFixed(t)
	for format, want := range map[bool]string{false: "application/jsonl", true: "text/csv"} {
		e, _ := f.export(t, f.admin, v1api.ExportJobResponsesParams{Csv: new(format)})
		link, err := f.admin.V1.GetJobResponsesLinkWithResponse(ctx, e.Filename, nil)
		testkit.Expect(t, link, err, http.StatusOK)
		res, err := http.Get(link.JSON200.Url)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if link.JSON200.ContentType == nil || *link.JSON200.ContentType != want || res.Header.Get("Content-Type") != want {
			t.Errorf("%s: link says %v, download served as %q; want %s", e.Filename, link.JSON200.ContentType,
				res.Header.Get("Content-Type"), want)
		}
	}
}

// TestReviewedAsTheJobSays: the `reviewed` field of a job without a review is NOT_REVIEWED, as the job
// route shows it, not empty; and the export's `reviewed` filter takes REVIEWED where the other job
// filters take NOT_REVIEWED (Document 1, §2).
func TestReviewedAsTheJobSays(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ids := f.seedFixed(t)
	fb, err := f.admin.V1.SubmitJobFeedbackWithResponse(ctx, f.app, ids[0], nil, v1api.JobFeedbackInput{Correct: new(false)})
	testkit.Expect(t, fb, err, http.StatusCreated)

	_, file := f.export(t, f.admin, v1api.ExportJobResponsesParams{FlattenedOutput: new(false)})
	lines := strings.Split(strings.TrimSuffix(file, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("export: %q", file)
	}
	for i, line := range lines {
		var rec struct{ Reviewed string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		job, err := f.admin.V1.GetJobWithResponse(ctx, f.app, ids[i], nil)
		testkit.Expect(t, job, err, http.StatusOK)
		if job.JSON200.Reviewed == nil || rec.Reviewed != string(*job.JSON200.Reviewed) {
			t.Errorf("job %d: the export says reviewed %q, the job %v", ids[i], rec.Reviewed, job.JSON200.Reviewed)
		}
	}
	if !strings.Contains(lines[0], `"reviewed":"NOT_CORRECT"`) || !strings.Contains(lines[1], `"reviewed":"NOT_REVIEWED"`) {
		t.Fatalf("export: %q", file)
	}
	_, csv := f.export(t, f.admin, v1api.ExportJobResponsesParams{Csv: new(true), FlattenedOutput: new(false)})
	if rows := strings.Split(csv, "\r\n"); len(rows) != 4 || !strings.Contains(rows[2], ",NOT_REVIEWED,") {
		t.Fatalf("csv: %q", csv)
	}

	_, reviewed := f.export(t, f.admin, v1api.ExportJobResponsesParams{Reviewed: &[]string{"REVIEWED"}})
	if strings.Count(reviewed, "\n") != 1 || !strings.Contains(reviewed, `"reviewed":"NOT_CORRECT"`) {
		t.Fatalf("reviewed=REVIEWED exported %q", reviewed)
	}
	refused, err := f.admin.V1.ExportJobResponsesWithResponse(ctx, f.app,
		&v1api.ExportJobResponsesParams{Reviewed: &[]string{"NOT_REVIEWED"}}, v1api.AppInstanceEmail{})
	testkit.Expect(t, refused, err, http.StatusBadRequest)
}

// TestDelimiterCharacters: fieldDelimiter takes the characters , ; | as well as their names (Document
// 1, §2), sent percent-encoded as clients send them.
func TestDelimiterCharacters(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.seedFixed(t)
	for value, delim := range map[string]string{";": ";", "|": "|", ",": ",", "semicolon": ";"} {
		_, file := f.export(t, f.admin, v1api.ExportJobResponsesParams{Csv: new(true), FlattenedOutput: new(false),
			FieldDelimiter: new(v1api.ExportJobResponsesParamsFieldDelimiter(value))})
		if want := strings.Join([]string{"id", "status", "batch_id"}, delim) + delim; !strings.HasPrefix(file, want) {
			t.Errorf("fieldDelimiter=%s: file starts %q, want %q", value, file[:min(len(file), 40)], want)
		}
	}
	// The same through the plain query string a hand-written client sends, escaped or not: Go would drop
	// a pair holding a bare ";" and export with commas.
	for _, query := range []string{"fieldDelimiter=%3B", "fieldDelimiter=;"} {
		req, err := http.NewRequest(http.MethodPost, f.env.URL+"/v1/apps/"+f.app.String()+"/job_responses?csv=true&flattenedOutput=false&"+query,
			strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+f.admin.Token)
		res, err := f.env.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var started v1api.AppDownloadJobs
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusAccepted || json.Unmarshal(body, &started) != nil {
			t.Fatalf("%s: %d %s", query, res.StatusCode, body)
		}
		e := f.wait(t, f.admin, started.ExportId)
		if file := f.download(t, f.admin, e.Filename); !strings.HasPrefix(file, "id;status;") {
			t.Errorf("%s: file starts %q", query, file[:min(len(file), 40)])
		}
	}
}

// TestNoEmptyResponseColumn: a flattened CSV of jobs with and without a response has the response.*
// columns only, not also a `response` column that is empty in every row.
func TestNoEmptyResponseColumn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.seedFixed(t)
	for _, p := range []v1api.ExportJobResponsesParams{{Csv: new(true)}, {Csv: new(true), FlattenTables: new(true)}} {
		_, file := f.export(t, f.admin, p)
		header := strings.Split(strings.SplitN(file, "\r\n", 2)[0], ",")
		for _, h := range header {
			if h == "response" {
				t.Errorf("header %v has an empty response column beside the response.* ones", header)
			}
		}
	}
	// Without any response to flatten, the one response column stays, so the file still shows it.
	f.env.DB.MustExec(`UPDATE jobs SET response = NULL WHERE app_id = $1`, f.app)
	_, file := f.export(t, f.admin, v1api.ExportJobResponsesParams{Csv: new(true)})
	if !strings.HasSuffix(strings.SplitN(file, "\r\n", 2)[0], ",input.doc.name,response") {
		t.Errorf("no response at all: %q", file)
	}
}
