package server_test

import (
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/loopwork/loopwork/internal/testkit"
)

// knownIDs holds the ids of resources the scenario created, by the path segment before the parameter
// and the parameter's name ("flows/{id}", "apps/{app_id}"): the sweep puts them into the paths of
// the operations the scenario did not call, so that those reach a real resource where one exists; and
// by a query parameter's name ("flow_execution_id") for the required query parameters.
type knownIDs map[string]string

func (k knownIDs) fill(path string, params openapi3.Parameters) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if !strings.HasPrefix(s, "{") || i == 0 {
			continue
		}
		if v := k[segs[i-1]+"/"+s]; v != "" {
			segs[i] = url.PathEscape(v)
		} else if v := k[s]; v != "" {
			segs[i] = url.PathEscape(v)
		}
	}
	return fillPath(strings.Join(segs, "/"), params)
}

// sweep calls, as platform staff, every operation of both documents that nothing called yet: with
// the ids the scenario knows, samples of the other path and required query parameters and of a
// required JSON body. Operations that remove something come last, so that they do not take away
// what the others use, and signing out comes last. Whatever the answer, Prism has validated it.
func sweep(t *testing.T, rec *prismRecorder, client *http.Client, base map[string]string, token string, ids knownIDs) {
	t.Helper()
	ops := operations(t)
	// Removals come after the rest, deletions of whole resources last among them, and signing out (which ends the session the sweep uses) last.
	rank := func(o operation) int {
		switch {
		case o.id == "logout":
			return 3
		case o.method == "DELETE" && strings.HasPrefix(o.id, "delete"):
			return 2 // a resource goes after what is removed from it (a member from a group)
		case o.method == "DELETE":
			return 1
		}
		return 0
	}
	sort.SliceStable(ops, func(i, j int) bool { return rank(ops[i]) < rank(ops[j]) })
	for _, o := range ops {
		if rec.called(o.doc, o.id) {
			continue
		}
		params := append(append(openapi3.Parameters{}, o.item.Parameters...), o.op.Parameters...)
		u := base[o.doc] + ids.fill(o.path, params)
		q := sampleQuery(params, "")
		for name := range q {
			if v := ids[name]; v != "" {
				q.Set(name, v)
			}
		}
		if len(q) > 0 {
			u += "?" + q.Encode()
		}
		var body io.Reader
		if b := requiredBody(o.op); b != "" {
			body = strings.NewReader(b)
		}
		req, err := http.NewRequest(strings.ToUpper(o.method), u, body)
		if err != nil {
			t.Fatal(err)
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("apikey", testkit.AnonKey)
		res, err := client.Do(req)
		if err != nil {
			t.Errorf("%s %s: %v", o.method, u, err)
			continue
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
}
