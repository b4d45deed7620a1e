package gallery_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/google/uuid"
	"github.com/itchyny/gojq"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/testkit"
)

// check waits for the execution to end and compares everything the example expects with what the API
// and the world around the server saw.
func (w *world) check(exec uuid.UUID) {
	t, want := w.t, w.ex.Expect
	x := testkit.WaitForExecution(t, w.owner, exec, platformapi.ExecutionStatusCompleted, platformapi.ExecutionStatusFailed)
	if string(x.Status) != want.Status {
		t.Fatalf("the execution is %s, want %s; its error: %s", x.Status, want.Status, asJSON(x.Error))
	}
	matches(t, "the execution's output", asValue(t, x.Output), want.Output)
	w.checkTasks(exec)
	w.checkRequests()
	w.checkEmails()
	for task, checks := range want.Reviews {
		matches(t, "the review of "+task, w.reviewOf(exec, task), checks)
	}
	if want.Job != nil {
		res, err := w.owner.V1.GetJobWithResponse(ctx, w.job.app, w.job.id, nil)
		testkit.Expect(t, res, err, http.StatusOK)
		matches(t, "the /v1 job", asValue(t, res.JSON200), want.Job)
	}
}

// checkTasks compares the statuses of each named task's attempts, or that it was skipped.
func (w *world) checkTasks(exec uuid.UUID) {
	t := w.t
	if len(w.ex.Expect.Tasks) == 0 && len(w.ex.Expect.Details) == 0 {
		return
	}
	res, err := w.owner.API.ListTaskExecutionRecordsWithResponse(ctx, &platformapi.ListTaskExecutionRecordsParams{FlowExecutionId: exec,
		Limit: new(1000)})
	testkit.Expect(t, res, err, http.StatusOK)
	attempts := map[string][]platformapi.TaskExecutionWithTagsAPI{}
	for _, a := range res.JSON200.TaskExecutions {
		attempts[a.TaskName] = append(attempts[a.TaskName], a)
	}
	statuses, err := w.owner.API.ListTaskStatusesWithResponse(ctx, exec, nil)
	testkit.Expect(t, statuses, err, http.StatusOK)
	for task, wantRaw := range w.ex.Expect.Tasks {
		if wantRaw == "skipped" {
			skipped := slices.ContainsFunc(*statuses.JSON200, func(s platformapi.FlowTaskStatusAPI) bool {
				return s.TaskName == task && s.Status != nil && *s.Status == "skipped"
			})
			if !skipped || len(attempts[task]) != 0 {
				t.Errorf("task %s: %d attempts, skipped %v; want it skipped", task, len(attempts[task]), skipped)
			}
			continue
		}
		var want []string
		if err := json.Unmarshal(asJSON(wantRaw), &want); err != nil {
			t.Fatalf("expect.tasks.%s: a list of attempt statuses or \"skipped\"", task)
		}
		as := attempts[task]
		sort.Slice(as, func(i, j int) bool { return as[i].TaskExecutionIdx < as[j].TaskExecutionIdx })
		var got []string
		for _, a := range as {
			got = append(got, string(a.Status))
		}
		if !slices.Equal(got, want) {
			t.Errorf("task %s: attempts %v, want %v", task, got, want)
		}
	}
	for task, want := range w.ex.Expect.Details {
		as := attempts[task]
		if len(as) == 0 {
			t.Errorf("task %s: no attempt, want one with detail %s", task, asJSON(want))
			continue
		}
		last := slices.MaxFunc(as, func(a, b platformapi.TaskExecutionWithTagsAPI) int { return a.TaskExecutionIdx - b.TaskExecutionIdx })
		if !equal(last.Detail, want) {
			t.Errorf("task %s: detail %s, want %s", task, asJSON(last.Detail), asJSON(want))
		}
	}
}

// checkRequests compares what the hooks server received with expect.requests.
func (w *world) checkRequests() {
	t := w.t
	got := map[string][]received{}
	for _, r := range w.hooks.all() {
		got[r.Key] = append(got[r.Key], r)
	}
	for key, want := range w.ex.Expect.Requests {
		n := 1
		if want.Count != nil {
			n = *want.Count
		}
		if len(got[key]) != n {
			t.Errorf("%s: received %d times, want %d: %v", key, len(got[key]), n, got[key])
		}
		for _, r := range got[key] {
			if want.Body != nil && !equal(r.Body, want.Body) {
				t.Errorf("%s: body %s, want %s", key, r.Raw, asJSON(want.Body))
			}
			matches(t, key, r.Body, want.Match)
			for name, v := range want.Headers {
				if r.Header.Get(name) != v {
					t.Errorf("%s: header %s is %q, want %q", key, name, r.Header.Get(name), v)
				}
			}
		}
		delete(got, key)
	}
	for key, rs := range got {
		t.Errorf("%s: received %d times, and the example expects no such request: %v", key, len(rs), rs)
	}
}

// checkEmails waits for the expected e-mails and compares them, in any order.
func (w *world) checkEmails() {
	t, want := w.t, w.ex.Expect.Emails
	if len(want) == 0 {
		return // an e-mail nobody expects arrives after the execution ends, if ever: not waited for
	}
	got := w.emails(len(want))
	if len(got) != len(want) {
		t.Errorf("%d e-mails delivered, want %d: %+v", len(got), len(want), got)
	}
	for _, e := range want {
		i := slices.IndexFunc(got, func(d delivered) bool {
			return d.Subject == e.Subject && slices.Equal(d.To, e.To) && d.Body == e.Body
		})
		if i < 0 {
			t.Errorf("no e-mail %+v among %+v", e, got)
			continue
		}
		got = slices.Delete(got, i, i+1)
	}
}

// reviewOf is the review task of the named human_review task, as JSON.
func (w *world) reviewOf(exec uuid.UUID, task string) any {
	t := w.t
	res, err := w.owner.API.ListHumanReviewTasksWithResponse(ctx, &platformapi.ListHumanReviewTasksParams{FlowExecutionId: &exec})
	testkit.Expect(t, res, err, http.StatusOK)
	for _, r := range res.JSON200.HumanReviewTasks {
		if r.TargetTaskName == task {
			return asValue(t, r)
		}
	}
	t.Fatalf("no review of task %s", task)
	return nil
}

// matches checks each jq expression of checks on v against its value.
func matches(t *testing.T, what string, v any, checks map[string]any) {
	t.Helper()
	for expr, want := range checks {
		got := jq(t, expr, v, nil)
		if !equal(got, want) {
			t.Errorf("%s: %s is %s, want %s", what, expr, asJSON(got), asJSON(want))
		}
	}
}

// jq runs a jq expression on v, with $v bound to value, and returns its first result.
func jq(t *testing.T, expr string, v any, value any) any {
	t.Helper()
	q, err := gojq.Parse(expr)
	if err != nil {
		t.Fatalf("jq %s: %v", expr, err)
	}
	code, err := gojq.Compile(q, gojq.WithVariables([]string{"$v"}))
	if err != nil {
		t.Fatalf("jq %s: %v", expr, err)
	}
	out, ok := code.Run(v, value).Next()
	if !ok {
		return nil
	}
	if err, isErr := out.(error); isErr {
		t.Fatalf("jq %s on %s: %v", expr, asJSON(v), err)
	}
	return out
}

// setPath sets the value at a jq path expression (".json.due_date") of v.
func setPath(t *testing.T, v any, path string, value any) any {
	t.Helper()
	return jq(t, fmt.Sprintf("setpath(path(%s); $v)", path), v, value)
}

// asValue is v as JSON decodes it (maps, slices, float64), for jq and comparisons.
func asValue(t *testing.T, v any) any {
	t.Helper()
	var out any
	if err := json.Unmarshal(asJSON(v), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func asJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(fmt.Sprintf("%v", v))
	}
	return b
}

// equal compares two JSON values by what they mean (numbers as numbers, whatever their Go type).
func equal(a, b any) bool {
	var x, y any
	if json.Unmarshal(asJSON(a), &x) != nil || json.Unmarshal(asJSON(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
