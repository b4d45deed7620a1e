package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/testkit"
)

// SeedExportJobs inserts n finished jobs with an input and a response, as an export reads them.
func SeedExportJobs(ctx context.Context, db *sqlx.DB, org, app uuid.UUID, n int) error {
	const batch = 100_000
	for from := 0; from < n; from += batch {
		to := min(from+batch, n) - 1
		if _, err := db.ExecContext(ctx, `INSERT INTO jobs (organization_id, app_id, status, processing_state, input,
				response, tags, batch_id, score, created_at, completed_at)
			SELECT $1, $2, 'COMPLETED', 'DONE',
			       jsonb_build_object('text', 'invoice ' || i, 'n', i),
			       jsonb_build_object('total', (i % 1000) / 10.0, 'currency', 'EUR', 'vendor', 'vendor ' || (i % 97)),
			       ARRAY['t' || (i % 5)], 'batch-' || (i / 10000), (i % 100) / 100.0,
			       now() - interval '1 day' + i * interval '1 millisecond', now()
			FROM generate_series($3::int, $4::int) i`, org, app, from, to); err != nil {
			return fmt.Errorf("seed export jobs: %w", err)
		}
	}
	_, err := db.ExecContext(ctx, `VACUUM ANALYZE jobs`)
	return err
}

// ExportSetup starts a server process with its own storage directory, and an app of n jobs.
type ExportSetup struct {
	bin, dsn, addr, token, dir string
	db                         *sqlx.DB
	app                        uuid.UUID
}

func NewExportSetup(t testing.TB, n int) *ExportSetup {
	s := &ExportSetup{bin: testkit.BuildServer(t), db: testkit.DB(t), addr: testkit.FreePort(t), dir: t.TempDir()}
	s.dsn = testkit.DSN(t, s.db)
	s.token = testkit.SeedCaller(t, s.db)
	var org uuid.UUID
	if err := s.db.Get(&org, `SELECT id FROM organizations WHERE name = 'crash'`); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Get(&s.app, `INSERT INTO apps (organization_id, name) VALUES ($1, 'exports') RETURNING id`, org); err != nil {
		t.Fatal(err)
	}
	if err := SeedExportJobs(context.Background(), s.db, org, s.app, n); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *ExportSetup) Serve(t testing.TB) *testkit.Process {
	return testkit.Serve(t, s.bin, s.dsn, s.addr, "LOOPWORK_STORAGE_DIR="+s.dir)
}

// start asks for an export with the query and answers its id.
func (s *ExportSetup) Start(t testing.TB, p *testkit.Process, query string) uuid.UUID {
	var e struct {
		ID uuid.UUID `json:"export_id"`
	}
	testkit.Call(t, p.URL, s.token, "POST", "/v1/apps/"+s.app.String()+"/job_responses?"+query, map[string]any{}, &e)
	return e.ID
}

type ExportState struct {
	Status   string `db:"status"`
	JobCount *int64 `db:"job_count"`
	Attempts int    `db:"attempts"`
	Filename string `db:"filename"`
}

func (s *ExportSetup) State(t testing.TB, id uuid.UUID) ExportState {
	var st ExportState
	if err := s.db.Get(&st, `SELECT status, job_count, attempts, filename FROM exports WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return st
}

// fetch downloads the file through its link.
func (s *ExportSetup) fetch(t testing.TB, p *testkit.Process, filename string) string {
	var link struct {
		URL string `json:"url"`
	}
	testkit.Call(t, p.URL, s.token, "GET", "/v1/apps/job_responses_link/"+filename, nil, &link)
	res, err := http.Get(link.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("download: %d %v", res.StatusCode, err)
	}
	return string(b)
}

// ExportThroughKill9 starts a CSV export of n jobs, kills the server with SIGKILL while it writes the
// file, starts another, and checks that the export completes once with every job in the file exactly
// once, and that no link was handed out for the file before it was whole. It answers how long the export
// took from the request and how many jobs its last progress report before the kill counted.
func ExportThroughKill9(t testing.TB, n int) (time.Duration, int64) {
	s := NewExportSetup(t, n)
	first := s.Serve(t)
	began := time.Now()
	id := s.Start(t, first, "csv=true&withHistory=true")
	var atKill int64
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		// Killed as soon as it runs: an export of a few hundred thousand jobs takes about a second now,
		// less than its first progress report.
		st := s.State(t, id)
		if st.Status == "RUNNING" {
			if st.JobCount != nil {
				atKill = *st.JobCount
			}
			break
		}
		if st.Status == "SUCCEEDED" || time.Now().After(deadline) {
			t.Fatalf("the export is %s before the kill: make it bigger", st.Status)
		}
	}
	first.Kill()
	second := s.Serve(t)
	var st ExportState
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if st = s.State(t, id); st.Status == "SUCCEEDED" {
			break
		}
		if st.Status == "FAILED" || time.Now().After(deadline) {
			t.Fatalf("after the restart the export is %s:\n%s", st.Status, second.Logs())
		}
		// Until it succeeds, its file has no link.
		req, _ := http.NewRequest("GET", second.URL+"/v1/apps/job_responses_link/"+st.Filename, nil)
		req.Header.Set("Authorization", "Bearer "+s.token)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			// The export may have finished between the look at its state and the request: a link is
			// wrong only for an export that is still unfinished after it was given.
			if res.StatusCode != http.StatusNotFound && s.State(t, id).Status != "SUCCEEDED" {
				t.Fatalf("a link for an unfinished file answered %d", res.StatusCode)
			}
		}
	}
	took := time.Since(began)
	file := s.fetch(t, second, st.Filename)
	rows := strings.Split(strings.TrimSuffix(file, "\r\n"), "\r\n")
	if len(rows) != n+1 || *st.JobCount != int64(n) || st.Attempts < 2 {
		t.Fatalf("after the restart: %d rows for %d jobs (job_count %d, %d attempts)", len(rows)-1, n, *st.JobCount, st.Attempts)
	}
	seen := make(map[string]bool, n)
	for _, r := range rows[1:] {
		id, _, _ := strings.Cut(r, ",")
		if seen[id] {
			t.Fatalf("job %s is in the file twice", id)
		}
		seen[id] = true
	}
	return took, atKill
}

// DSN is the database's connection string.
func (s *ExportSetup) DSN() string { return s.dsn }

// App is the app whose jobs are exported.
func (s *ExportSetup) App() uuid.UUID { return s.app }
