package gallery_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/agent/builtin"
	"github.com/loopwork/loopwork/internal/testkit"
)

// The agent's corpus (internal/agent/builtin/testdata/corpus.json) run end to end: every request, with
// its edits and rejections, becomes the built-in agent's proposal, which is saved as a flow (the
// validator must neither refuse nor warn), started on the case's sample input with the built-in model,
// its reviews approved (or rejected where the case says), and its outcome compared with the case's:
// the execution's status, every HTTP request it made and every e-mail it sent.

const corpusFile = "../agent/builtin/testdata/corpus.json"

// corpusCase is one request of the corpus, as far as running it goes.
type corpusCase struct {
	Request string    `json:"request"`
	Edits   []string  `json:"edits"`
	Reject  string    `json:"reject"`
	Asks    bool      `json:"asks"`
	Run     corpusRun `json:"run"`
}

// corpusRun is what a case runs on and must come to.
type corpusRun struct {
	// Input is the execution's input; the standard invoice when omitted. Its subject is always set to
	// the case's number, so that the case's e-mails can be told apart.
	Input map[string]any `json:"input"`
	// Reject names the reviews a person rejects; every other review is approved as shown.
	Reject []string `json:"reject"`
	// Status is the execution's final status, completed when omitted.
	Status string `json:"status"`
	// Output maps jq expressions on the execution's output to the values they must give.
	Output map[string]any `json:"output"`
	// Requests are every HTTP request the flow makes, by "METHOD /path", each with jq expressions on
	// its JSON body and the values they must give.
	Requests map[string]map[string]any `json:"requests"`
	// Emails are the e-mails it sends: recipients and lines the text must hold.
	Emails []corpusEmail `json:"emails"`
}

type corpusEmail struct {
	To       []string `json:"to"`
	Contains []string `json:"contains"`
}

var standardInput = map[string]any{"text": "ACME Tools Ltd, 12 Harbour Road, Bristol\nVendor: ACME Tools Ltd\n" +
	"Invoice number: INV-2041\nDate: 2026-03-02\nDue date: 2026-04-01\nTotal: 1,250.00 EUR\n" +
	"Contact: billing@acme.test, +44 117 496 0000\n"}

// corpusSQL is the database the corpus's sql_query tasks read.
const corpusSQL = `CREATE TABLE my_table (id int, name text);
INSERT INTO my_table VALUES (1, 'first'), (2, 'second');
CREATE TABLE orders (id int, region text, total numeric);
INSERT INTO orders VALUES (1, 'north', 120.5), (2, 'south', 80);
CREATE TABLE customers (id int, name text, email text);
INSERT INTO customers VALUES (1, 'Ada', 'ada@example.com');`

func TestAgentCorpusRuns(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(corpusFile)
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, &example{file: "corpus.json", Title: "the agent's corpus"})
	w.sqlDatabase = w.registerSQL(corpusSQL)
	// The cases mostly wait on the server, so they run eight at a time whatever go test's -parallel
	// (the machine's cores) says: t.Run may be called from several goroutines at once.
	var wg sync.WaitGroup
	slots := make(chan struct{}, 8)
	for i, c := range cases {
		if c.Asks {
			continue // a question, not a proposal
		}
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			t.Run(fmt.Sprintf("%02d", i), func(t *testing.T) {
				cw := *w
				cw.t, cw.ex = t, &example{file: fmt.Sprintf("corpus case %d", i), Title: fmt.Sprintf("corpus case %d: %.60s", i, c.Request)}
				c.run(&cw, i)
			})
		}()
	}
	wg.Wait()
}

// proposal is what the built-in agent proposes for the case: the request, then each edit, then the
// revision after a rejection.
func (c corpusCase) proposal() builtin.Proposal {
	p := builtin.Propose(c.Request)
	for _, e := range c.Edits {
		p = builtin.Edit(p.Definition, e)
	}
	if c.Reject != "" {
		p = builtin.Revise(p.Definition, c.Reject)
	}
	return p
}

var anyURL = regexp.MustCompile(`https?://[^/"\s]+`)

func (c corpusCase) run(w *world, i int) {
	t := w.t
	p := c.proposal()
	if !p.Understood {
		t.Fatalf("%q: not understood: %s", c.Request, p.Plan)
	}
	// Every address the flow calls is the hooks server's, under the case's own path; waits are cut to a
	// second; the placeholder database is the registered one.
	prefix := fmt.Sprintf("/c%d", i)
	for _, task := range p.Definition["tasks"].([]any) {
		m := task.(map[string]any)
		params := m["parameters"].(map[string]any)
		switch m["type"] {
		case "http_request":
			params["url"] = anyURL.ReplaceAllString(params["url"].(string), hooksHost+prefix)
		case "delay":
			params["seconds"] = 1
		case "sql_query":
			params["database_id"] = "${sql_database}"
		}
	}
	def, _ := json.Marshal(p.Definition)
	w.flow = w.createFlow(w.fill(string(def)))
	input := map[string]any{}
	for k, v := range orDefault(c.Run.Input, standardInput) {
		input[k] = v
	}
	input["subject"] = fmt.Sprintf("case %d", i)
	res, err := w.owner.API.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: w.flow, Input: input})
	testkit.Expect(t, res, err, http.StatusCreated)
	x := w.reviewUntilDone(res.JSON201.Id, c.Run.Reject)
	if want := orDefault(c.Run.Status, "completed"); string(x.Status) != want {
		t.Fatalf("the execution is %s, want %s; its error: %s\n%s", x.Status, want, asJSON(x.Error), def)
	}
	matches(t, "the execution's output", asValue(t, x.Output), c.Run.Output)
	c.checkRequests(w, prefix, def)
	c.checkEmails(w, input["subject"].(string), def)
}

func orDefault[M ~map[string]any | ~string](v M, d M) M {
	if len(v) == 0 {
		return d
	}
	return v
}

// reviewUntilDone approves (or rejects) each review of the execution as it opens, until it ends.
func (w *world) reviewUntilDone(exec uuid.UUID, reject []string) *platformapi.FlowExecutionResponseWithRunNumber {
	t := w.t
	deadline := time.Now().Add(30 * time.Second)
	for ; time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		x, err := w.owner.API.GetFlowExecutionWithResponse(ctx, exec, nil)
		testkit.Expect(t, x, err, http.StatusOK)
		switch x.JSON200.Status {
		case platformapi.ExecutionStatusCompleted, platformapi.ExecutionStatusFailed:
			return x.JSON200
		}
		res, err := w.owner.API.ListHumanReviewTasksWithResponse(ctx, &platformapi.ListHumanReviewTasksParams{FlowExecutionId: &exec})
		testkit.Expect(t, res, err, http.StatusOK)
		for _, r := range res.JSON200.HumanReviewTasks {
			if r.Status == platformapi.HumanReviewTaskStatusPending || r.Status == platformapi.HumanReviewTaskStatusInProgress {
				w.review(exec, step{Review: r.TargetTaskName, Approve: new(!strings.Contains(strings.Join(reject, ","), r.TargetTaskName))})
			}
		}
	}
	t.Fatalf("after 30 s the execution has not ended")
	return nil
}
