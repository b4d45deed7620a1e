// Package gallery_test runs every example flow of docs/examples end to end: each file's flow is created
// through /api on a real server, started on its sample input (or by the e-mail or /v1 job that starts it in
// use), the people and workers it waits for act through the API, and its outcome is checked against the
// file's expectations.
package gallery_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// dir is where the examples live, from this package's folder.
const dir = "../../docs/examples"

// example is one file of the gallery. Unknown fields fail the test: a misspelt expectation would
// otherwise check nothing.
type example struct {
	file        string
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Definition  json.RawMessage `json:"definition"`
	Input       json.RawMessage `json:"input"`
	Given       given           `json:"given"`
	Steps       []step          `json:"steps"`
	Expect      expect          `json:"expect"`
}

// given is the world an example runs in, which the test sets up before the flow is created.
type given struct {
	// Users are people of the organization besides the flow's creator, by the names ${user:NAME} uses.
	Users []string `json:"users"`
	// SQL runs on the registered SQL database that ${sql_database} names, which exists only when it is set.
	SQL string `json:"sql"`
	// Hooks say how the HTTP server behind https://hooks.example.test answers, by path: the answers in
	// order, the last one repeated; a path not named answers 200 {"ok": true}.
	Hooks map[string][]answer `json:"hooks"`
	// EmailTask is the task_name of the e-mail task that starts the flow (the inbound e-mail example).
	EmailTask string `json:"email_task"`
}

type answer struct {
	Status int `json:"status"`
	Body   any `json:"body"`
}

// step is one thing a person or a worker does while the execution runs, in order; exactly one of
// Review, Claim and Label is set.
type step struct {
	// Review completes the review of the human_review task of that name as By (a given user, or the
	// flow's creator when empty), approving or not, with Set applied to the reviewed object (jq paths
	// to values).
	Review  string         `json:"review"`
	By      string         `json:"by"`
	Approve *bool          `json:"approve"`
	Set     map[string]any `json:"set"`
	// Claim claims an attempt of an external task from that queue as an outside worker, checks what it
	// Receives (jq on the claim's reply), and reports Report as the attempt's output.
	Claim    string          `json:"claim"`
	Receives map[string]any  `json:"receives"`
	Report   json.RawMessage `json:"report"`
	// Label takes the /v1 job to label as By (a LABELER of the app) and answers it with this response.
	Label json.RawMessage `json:"label"`
}

// expect is what the run must come to.
type expect struct {
	// Status is the execution's final status.
	Status string `json:"status"`
	// Output maps jq expressions on the execution's output to the values they must give.
	Output map[string]any `json:"output"`
	// Tasks are the statuses of each named task's attempts in order, or "skipped".
	Tasks map[string]any `json:"tasks"`
	// Details are the detail of each named task's last attempt: what a condition decided or a delay
	// waited.
	Details map[string]any `json:"details"`
	// Requests are what the hooks server received, by "METHOD /path": how many (1 if not said) and,
	// when given, each one's JSON body, jq expressions on it (match) and headers. Any request not
	// listed fails the test.
	Requests map[string]request `json:"requests"`
	// Emails are the messages delivered, in any order; no other may be.
	Emails []email `json:"emails"`
	// Reviews map a human_review task's name to jq expressions on its review task (GET
	// /api/human-review-tasks/{id}) and their values.
	Reviews map[string]map[string]any `json:"reviews"`
	// Job maps jq expressions on the /v1 job to their values (the /v1 example).
	Job map[string]any `json:"job"`
}

type request struct {
	Count   *int              `json:"count"`
	Body    any               `json:"body"`
	Match   map[string]any    `json:"match"`
	Headers map[string]string `json:"headers"`
}

type email struct {
	To      []string `json:"to"`
	Subject string   `json:"subject"`
	Body    string   `json:"body"`
}

// load reads every example of the gallery.
func load(t *testing.T) []*example {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*example
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ex := &example{file: filepath.Base(f)}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(ex); err != nil {
			t.Fatalf("%s: %v", ex.file, err)
		}
		switch {
		case ex.Title == "" || ex.Description == "":
			t.Fatalf("%s: an example needs a title and a description", ex.file)
		case len(ex.Definition) == 0 || len(ex.Input) == 0:
			t.Fatalf("%s: an example needs a definition and a sample input", ex.file)
		case ex.Expect.Status == "":
			t.Fatalf("%s: an example needs expect.status", ex.file)
		}
		out = append(out, ex)
	}
	return out
}

// TestGallery runs every example with its driver; a file without one, or a driver without its file,
// fails.
func TestGallery(t *testing.T) {
	t.Parallel()
	examples := load(t)
	seen := map[string]bool{}
	for _, ex := range examples {
		seen[ex.file] = true
		t.Run(strings.TrimSuffix(ex.file, ".json"), func(t *testing.T) {
			t.Parallel()
			drive, ok := drivers[ex.file]
			if !ok {
				t.Fatalf("no driver for %s: add one to drivers in %s", ex.file, "internal/gallery")
			}
			w := newWorld(t, ex)
			exec := drive(w)
			w.check(exec)
		})
	}
	for f := range drivers {
		if !seen[f] {
			t.Errorf("a driver for %s, which is not in %s", f, dir)
		}
	}
}

// TestReadmeListsEveryExample: the gallery has at least the eight kinds of flow people build that the
// issue named, and its README links each file, so none is left out of it.
func TestReadmeListsEveryExample(t *testing.T) {
	t.Parallel()
	examples := load(t)
	if len(examples) < 8 {
		t.Errorf("%d examples in %s, want at least 8", len(examples), dir)
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, ex := range examples {
		if !bytes.Contains(readme, []byte("("+ex.file+")")) {
			missing = append(missing, ex.file)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("docs/examples/README.md links no row to %v", slices.Sorted(slices.Values(missing)))
	}
}

// drivers start each example the way it is started in use and act for its people and workers; each
// returns the execution to check.
var drivers = map[string]func(w *world) uuid.UUID{
	"invoice.json":         startAndAct,
	"webhook-fan-out.json": startAndAct,
	"sql-report.json":      startAndAct,
	"inbound-email.json": func(w *world) uuid.UUID {
		x := w.receiveEmail()
		w.act(x)
		return x
	},
	"outside-worker.json":   startAndAct,
	"delayed-reminder.json": startAndAct,
	"two-approvers.json":    startAndAct,
	"v1-labeling.json":      func(w *world) uuid.UUID { return w.submitJob() },
}

// startAndAct starts an execution through the API, as a person, a script or a cron job does, and takes
// the example's steps on it.
func startAndAct(w *world) uuid.UUID {
	x := w.start()
	w.act(x)
	return x
}
