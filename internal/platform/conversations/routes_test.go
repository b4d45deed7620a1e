package conversations_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/agent/builtin"
)

// routeRe finds a route the agent names: a method, then a path (backticked or not).
var routeRe = regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE) (/[A-Za-z0-9_\-./{}]*)`)

// servedRoutes are the operations of both served documents, as "METHOD" → path templates.
func servedRoutes(t *testing.T) map[string][]string {
	out := map[string][]string{}
	for _, raw := range [][]byte{platformapi.OpenAPIJSON, v1api.OpenAPIJSON} {
		var doc struct {
			Paths map[string]map[string]json.RawMessage `json:"paths"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		for path, ops := range doc.Paths {
			for method := range ops {
				out[strings.ToUpper(method)] = append(out[strings.ToUpper(method)], path)
			}
		}
	}
	return out
}

// matches says whether a named path is a path template of the contract: the same segments, a
// {parameter} of the template standing for any one segment.
func matches(template, path string) bool {
	ts, ps := strings.Split(template, "/"), strings.Split(path, "/")
	if len(ts) != len(ps) {
		return false
	}
	for i := range ts {
		if ts[i] != ps[i] && !(strings.HasPrefix(ts[i], "{") && ps[i] != "") {
			return false
		}
	}
	return true
}

// agentTexts are what the agent can say: the source of the built-in agent and of the conversations
// (its messages and prompts are written there), and the plans and summaries it writes for the
// requests of its corpus, proposed anew and as edits of the previous one's proposal.
func agentTexts(t *testing.T) map[string]string {
	texts := map[string]string{}
	for _, dir := range []string{"../../agent/builtin", "."} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no source in %s: %v", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			texts[f] = string(raw)
		}
	}
	raw, err := os.ReadFile("../../agent/builtin/testdata/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus []struct {
		Request string `json:"request"`
	}
	if err := json.Unmarshal(raw, &corpus); err != nil {
		t.Fatal(err)
	}
	var previous map[string]any
	for _, ex := range corpus {
		p := builtin.Propose(ex.Request)
		texts["the proposal for "+ex.Request] = p.Plan + "\n" + p.Summary
		if previous != nil {
			e := builtin.Edit(previous, ex.Request)
			texts["the edit for "+ex.Request] = e.Plan + "\n" + e.Summary
		}
		previous = p.Definition
	}
	return texts
}

// TestNamedRoutesExist: every "METHOD /path" the agent can say to a user is an operation of the
// served contracts, so the agent never sends anyone to a route that does not exist.
func TestNamedRoutesExist(t *testing.T) {
	t.Parallel()
	routes := servedRoutes(t)
	texts := agentTexts(t)
	keys := make([]string, 0, len(texts))
	for k := range texts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	found := 0
	for _, where := range keys {
		for _, m := range routeRe.FindAllStringSubmatch(texts[where], -1) {
			method, path := m[1], strings.TrimRight(m[2], ".,;:")
			found++
			known := false
			for _, template := range routes[method] {
				known = known || matches(template, path)
			}
			if !known {
				t.Errorf("%s names %s %s, which the served contracts do not have", where, method, path)
			}
		}
	}
	if found == 0 {
		t.Fatal("no route named anywhere: the scan is broken (the e-mail trigger note names one)")
	}
}
