package builtin

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// example is one request of the corpus: a new flow, or (with edits or a rejection's reason) the
// changes made to the flow the request proposed. Run is what internal/gallery runs it on.
type example struct {
	Request string   `json:"request"`
	Edits   []string `json:"edits"`
	Reject  string   `json:"reject"`
	Types   []string `json:"types"`
	Missing []string `json:"missing"`
	// Changes are the last edit's changes, as "op task".
	Changes []string `json:"changes"`
	// Asks says the last edit names a task ambiguously, so the agent asks which instead of proposing.
	Asks bool            `json:"asks"`
	Run  json.RawMessage `json:"run"`
}

// propose is the agent's proposal for the example: the request, then each edit, then the revision.
func (ex example) propose() Proposal {
	p := Propose(ex.Request)
	for _, e := range ex.Edits {
		p = Edit(p.Definition, e)
	}
	if ex.Reject != "" {
		p = Revise(p.Definition, ex.Reject)
	}
	return p
}

func corpus(t testing.TB) []example {
	raw, err := os.ReadFile("testdata/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCorpus: every request of the corpus becomes a flow whose tasks have the expected types in order,
// which the flow validator accepts, with the expected parameters listed as missing; the plan and the
// summary name every task.
func TestCorpus(t *testing.T) {
	reg := tasks.Builtin()
	examples := corpus(t)
	if len(examples) < 30 {
		t.Fatalf("%d examples; the corpus keeps at least 30", len(examples))
	}
	for _, ex := range examples {
		p := ex.propose()
		if ex.Asks {
			if p.Understood || !strings.Contains(p.Plan, "Which") {
				t.Errorf("%q %q: want a question, got %+v", ex.Request, ex.Edits, p)
			}
			continue
		}
		if ex.Run == nil {
			t.Errorf("%q: the example has no run: internal/gallery runs every proposal", ex.Request)
		}
		var changes []string
		for _, c := range p.Changes {
			changes = append(changes, c.Op+" "+c.Task)
		}
		sort.Strings(changes)
		sort.Strings(ex.Changes)
		if strings.Join(changes, ",") != strings.Join(ex.Changes, ",") {
			t.Errorf("%q %q: changes %v, want %v", ex.Request, ex.Edits, changes, ex.Changes)
		}
		if len(ex.Edits)+len(ex.Reject) > 0 && !strings.HasPrefix(p.Summary, "What changes:") {
			t.Errorf("%q %q: the summary does not begin with the changes:\n%s", ex.Request, ex.Edits, p.Summary)
		}
		var types, names []string
		for _, task := range p.Definition["tasks"].([]any) {
			m := task.(map[string]any)
			types = append(types, m["type"].(string))
			names = append(names, m["name"].(string))
		}
		if strings.Join(types, ",") != strings.Join(ex.Types, ",") {
			t.Errorf("%q: types %v, want %v", ex.Request, types, ex.Types)
			continue
		}
		raw, _ := json.Marshal(p.Definition)
		if res := dsl.ValidateJSON(raw, reg); len(res.Errors) > 0 {
			t.Errorf("%q: the proposal does not validate: %+v\n%s", ex.Request, res.Errors, raw)
		}
		var missing []string
		for _, m := range p.Missing {
			for _, param := range m.Missing {
				missing = append(missing, m.Name+"."+param)
			}
		}
		sort.Strings(missing)
		if strings.Join(missing, ",") != strings.Join(ex.Missing, ",") {
			t.Errorf("%q: missing %v, want %v", ex.Request, missing, ex.Missing)
		}
		for _, n := range names {
			if !strings.Contains(p.Summary, "**"+n+"**") {
				t.Errorf("%q: the summary does not name %s:\n%s", ex.Request, n, p.Summary)
			}
		}
		if !p.Understood || !strings.Contains(p.Plan, "Confirm the plan") && !strings.Contains(p.Plan, "what I will change") {
			t.Errorf("%q: plan %q", ex.Request, p.Plan)
		}
	}
}

// TestInvoiceExample: the request of the contract's example, in detail: the extraction's schema
// holds the total as a number and the confidence, low confidence goes to review (the condition's true
// branch) and the rest straight to the post (its false branch, which passes the extraction on), and
// the post runs after whichever path ran; no data edge from the extraction makes it run regardless.
func TestInvoiceExample(t *testing.T) {
	p := Propose("When an invoice e-mail arrives, extract the total, send it to review if below 0.9 confidence, then post it to https://erp.example.com/invoices")
	raw, _ := json.Marshal(p.Definition)
	for _, want := range []string{`"total":{"description":"The total, null when the input does not give it.","type":["number","null"]}`, `".json.confidence \u003c 0.9"`,
		`{"source":"check_confidence","target":"review"}`, `{"branch":false,"source":"check_confidence","target":"post"}`,
		`{"condition":".review_result","source":"review","target":"post"}`, `"review_of":"extract"`, `"url":"https://erp.example.com/invoices"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("missing %s in\n%s", want, raw)
		}
	}
	if strings.Contains(string(raw), `{"source":"extract","target":"post"}`) {
		t.Errorf("a data edge extract → post would run the post whatever the review says:\n%s", raw)
	}
	if !strings.Contains(p.Summary, "e-mail task") || len(p.Missing) != 0 {
		t.Errorf("summary %q, missing %+v", p.Summary, p.Missing)
	}
}

// TestNothingUnderstood: a request without a known step gives no tasks and a plan that says so.
func TestNothingUnderstood(t *testing.T) {
	p := Propose("hello there")
	if p.Understood || len(p.Definition["tasks"].([]any)) != 0 || !strings.Contains(p.Plan, "could not find") {
		t.Fatalf("%+v", p)
	}
}

// BenchmarkPropose reports the time of a proposal for each corpus request, validation included
// (goal: p50 ≤ 50 ms).
func BenchmarkPropose(b *testing.B) {
	reg := tasks.Builtin()
	examples := corpus(b)
	var took []time.Duration
	for i := 0; i < b.N; i++ {
		for _, ex := range examples {
			began := time.Now()
			raw, _ := json.Marshal(ex.propose().Definition)
			dsl.ValidateJSON(raw, reg)
			took = append(took, time.Since(began))
		}
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99_ms")
}
