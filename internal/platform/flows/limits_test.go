package flows_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/testkit"
)

// tasksJSON writes n transform tasks named t0, t1, ... and a chain of edges between them, plus extra
// edges from t0 to t1 to reach edges in all.
func tasksJSON(n, edges int, name func(i int) string) string {
	var b strings.Builder
	b.WriteString(`{"version": 1, "tasks": [`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name": %q, "type": "transform", "parameters": {"expression": "."}}`, name(i))
	}
	b.WriteString(`], "edges": [`)
	for i := 0; i < edges; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		src, dst := i, i+1
		if i >= n-1 {
			src, dst = 0, 1
		}
		fmt.Fprintf(&b, `{"source": %q, "target": %q}`, name(src), name(dst))
	}
	b.WriteString(`]}`)
	return b.String()
}

func seq(i int) string { return fmt.Sprintf("t%d", i) }

// TestHostileDefinitions: definitions of several megabytes, deep nesting, too many edges, long names and
// jq that is not a string each get a clear answer with a location: stored with its problems, or a 422
// for what is beyond the limits. Never a 5xx.
func TestHostileDefinitions(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	user := env.User(t, env.Org(t), auth.RoleAppUser)
	deep := strings.Repeat(`{"a":`, 10000) + `1` + strings.Repeat(`}`, 10000)
	deepParams := `{"version": 1, "tasks": [{"name": "x", "type": "transform", "parameters": {"expression": ".", "deep": ` +
		strings.Repeat(`[`, 200) + strings.Repeat(`]`, 200) + `}}], "edges": []}`
	longName := strings.Repeat("n", dsl.MaxNameLength+1)
	for _, c := range []struct {
		name, definition string
		status           int
		loc, kind        string
	}{
		{"several megabytes", tasksJSON(dsl.MaxTasks, dsl.MaxTasks-1, func(i int) string { return fmt.Sprintf("%0150d", i) }),
			http.StatusCreated, "", ""},
		{"too many tasks", tasksJSON(dsl.MaxTasks+1, 0, seq), http.StatusUnprocessableEntity, `["body","definition","tasks"]`, dsl.KindTooManyTasks},
		{"100,000 edges", tasksJSON(3, 100000, seq), http.StatusUnprocessableEntity, `["body","definition","edges"]`, dsl.KindTooManyEdges},
		{"nested 10,000 deep", `{"version": 1, "tasks": [], "edges": [], "x": ` + deep + `}`, http.StatusUnprocessableEntity, "", ""},
		{"deep parameters", deepParams, http.StatusUnprocessableEntity, "", dsl.KindTooDeep},
		{"an unknown field nested 9,990 deep", `{"version": 1, "tasks": [], "edges": [], "x": ` +
			strings.Repeat(`[`, 9990) + strings.Repeat(`]`, 9990) + `}`, http.StatusUnprocessableEntity, "", dsl.KindTooDeep},
		{"long task name", `{"version": 1, "tasks": [{"name": "` + longName + `", "type": "delay", "parameters": {"seconds": 1}}], "edges": []}`,
			http.StatusCreated, `["definition","tasks",0,"name"]`, dsl.KindStringTooLong},
		{"jq that is a number", `{"version": 1, "tasks": [{"name": "x", "type": "transform", "parameters": {"expression": 42}}], "edges": []}`,
			http.StatusCreated, `["definition","tasks",0,"parameters","expression"]`, ""},
		{"jq that does not parse", `{"version": 1, "tasks": [{"name": "x", "type": "transform", "parameters": {"expression": ".a |"}}], "edges": []}`,
			http.StatusCreated, `["definition","tasks",0,"parameters","expression"]`, dsl.KindJQSyntax},
	} {
		body := `{"display_name": "hostile", "definition": ` + c.definition + `}`
		res, err := user.API.CreateFlowWithBodyWithResponse(ctx, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != c.status {
			t.Errorf("%s: status %d, want %d: %.300s", c.name, res.StatusCode(), c.status, res.Body)
			continue
		}
		switch {
		case c.status == http.StatusUnprocessableEntity:
			items := validation(t, res)
			if c.loc != "" && locString(items[0].Loc) != c.loc {
				t.Errorf("%s: first problem at %s, want %s", c.name, locString(items[0].Loc), c.loc)
			}
			if c.kind != "" && items[0].Type != c.kind {
				t.Errorf("%s: first problem %s, want %s", c.name, items[0].Type, c.kind)
			}
		case c.loc != "":
			errs := *res.JSON201.ValidationErrors
			if len(errs) == 0 || locString(errs[0].Loc) != c.loc || (c.kind != "" && errs[0].Type != c.kind) {
				t.Errorf("%s: problems %+v, want one at %s", c.name, errs, c.loc)
			}
		default:
			if n := len(*res.JSON201.ValidationErrors); n != 0 {
				t.Errorf("%s: %d problems: %+v", c.name, n, (*res.JSON201.ValidationErrors)[0])
			}
		}
	}
}
