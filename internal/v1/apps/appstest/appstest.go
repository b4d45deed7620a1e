// Package appstest holds the fixtures the tests of the /v1 app, tag, member and worker routes share:
// rows written straight to the database (flows, apps, jobs, memberships) and checks of replies.
package appstest

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Flow inserts a flow of org whose latest version has the name and definition, and returns its id. The
// version is marked valid, as the flows service marks a definition without problems, whatever the
// definition: tests of apps need a flow an app may be bound to, not a flow that could run.
func Flow(t testing.TB, db *sqlx.DB, org uuid.UUID, name, definition string) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	if err := db.Get(&id, `INSERT INTO flows (organization_id) VALUES ($1) RETURNING id`, org); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO flow_versions (flow_id, version, organization_id, display_name, status, definition, valid)
		VALUES ($1, 1, $2, $3, 'published', $4, true)`, id, org, name, definition); err != nil {
		t.Fatal(err)
	}
	return id
}

// RenameFlow adds a new latest version of the flow under another name.
func RenameFlow(t testing.TB, db *sqlx.DB, flow uuid.UUID, name string) {
	t.Helper()
	if _, err := db.Exec(`WITH f AS (UPDATE flows SET latest_version = latest_version + 1 WHERE id = $1 RETURNING *)
		INSERT INTO flow_versions (flow_id, version, organization_id, display_name, status, definition, valid)
		SELECT f.id, f.latest_version, f.organization_id, $2, 'published', '{"tasks":[]}', true FROM f`, flow, name); err != nil {
		t.Fatal(err)
	}
}

// App inserts an app of org; owner may be nil.
func App(t testing.TB, db *sqlx.DB, org uuid.UUID, name string, owner *uuid.UUID) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	if err := db.Get(&id, `INSERT INTO apps (organization_id, name, owner_id) VALUES ($1, $2, $3) RETURNING id`,
		org, name, owner); err != nil {
		t.Fatal(err)
	}
	return id
}

// JobSpec describes a job to insert; empty fields take harmless defaults.
type JobSpec struct {
	Status       string
	Score        *float64
	Tags         []string
	FeedbackTags []string
	Feedback     int
	AssignedTo   *uuid.UUID
}

// Job inserts a job of the app and returns its id.
func Job(t testing.TB, db *sqlx.DB, org, app uuid.UUID, j JobSpec) int64 {
	t.Helper()
	if j.Status == "" {
		j.Status = "SCHEDULED"
	}
	var id int64
	err := db.Get(&id, `INSERT INTO jobs (organization_id, app_id, status, processing_state, input, tags, score,
		feedback_count, feedback_tags, assigned_to) VALUES ($1, $2, $3, 'QUEUED', '{}', $4, $5, $6, $7, $8) RETURNING id`,
		org, app, j.Status, pq.StringArray(orEmpty(j.Tags)), j.Score, j.Feedback, pq.StringArray(orEmpty(j.FeedbackTags)), j.AssignedTo)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Member gives a user its own membership of an app.
func Member(t testing.TB, db *sqlx.DB, app, user uuid.UUID, role string) {
	t.Helper()
	if _, err := db.Exec(`INSERT INTO app_workers (app_id, user_id, organization_id, role)
		SELECT $1, $2, organization_id, $3 FROM apps WHERE id = $1`, app, user, role); err != nil {
		t.Fatal(err)
	}
}

// Group creates a worker group of org with the members and returns its id.
func Group(t testing.TB, db *sqlx.DB, org uuid.UUID, name string, members ...uuid.UUID) int64 {
	t.Helper()
	var id int64
	if err := db.Get(&id, `INSERT INTO worker_groups (organization_id, name) VALUES ($1, $2) RETURNING id`, org, name); err != nil {
		t.Fatal(err)
	}
	for _, m := range members {
		if _, err := db.Exec(`INSERT INTO worker_group_members (group_id, user_id, organization_id) VALUES ($1, $2, $3)`,
			id, m, org); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

// GroupOnApp gives a worker group a role on an app.
func GroupOnApp(t testing.TB, db *sqlx.DB, app uuid.UUID, group int64, role string) {
	t.Helper()
	if _, err := db.Exec(`INSERT INTO app_worker_groups (app_id, group_id, organization_id, role)
		SELECT $1, $2, organization_id, $3 FROM apps WHERE id = $1`, app, group, role); err != nil {
		t.Fatal(err)
	}
}

// WorkerID returns the worker id of a user.
func WorkerID(t testing.TB, db *sqlx.DB, user uuid.UUID) int64 {
	t.Helper()
	var id int64
	if err := db.Get(&id, `SELECT worker_id FROM users WHERE id = $1`, user); err != nil {
		t.Fatal(err)
	}
	return id
}

// Response is any reply of the generated client.
type Response interface{ StatusCode() int }

// Expect fails the test unless the call succeeded at the HTTP level and answered the status.
func Expect(t testing.TB, res Response, err error, want int) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode() != want {
		t.Fatalf("status %d, want %d: %s", res.StatusCode(), want, body(res))
	}
}

// Error is the part of an ErrorResponse a test compares.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details []struct {
		Loc  []any  `json:"loc"`
		Type string `json:"type"`
	} `json:"details"`
}

// ErrorOf reads the error of a reply.
func ErrorOf(t testing.TB, res Response) Error {
	t.Helper()
	var e struct {
		Error Error `json:"error"`
	}
	if err := json.Unmarshal(body(res), &e); err != nil {
		t.Fatalf("not an ErrorResponse: %s", body(res))
	}
	return e.Error
}

// SameAsMissing fails unless got is exactly the 404 that missing (a random id) answered.
func SameAsMissing(t testing.TB, got, missing Response) {
	t.Helper()
	if got.StatusCode() != 404 || missing.StatusCode() != 404 {
		t.Fatalf("statuses %d and %d, want 404 for both: %s / %s", got.StatusCode(), missing.StatusCode(), body(got), body(missing))
	}
	if a, b := ErrorOf(t, got), ErrorOf(t, missing); a.Code != b.Code || a.Message != b.Message {
		t.Fatalf("another organization's id answers %+v, a random id %+v", a, b)
	}
}

func body(res Response) []byte {
	v := reflect.Indirect(reflect.ValueOf(res)).FieldByName("Body")
	if !v.IsValid() {
		return nil
	}
	return v.Bytes()
}
