package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// badTexts are strings PostgreSQL refuses in text columns: bytes that are not UTF-8, and NUL.
var badTexts = []string{"\xff\xfe", "\xc3\x28", "a\x00b"}

// badJSONStrings are the same as JSON string literals, plus the escapes encoding/json would decode
// into a NUL or silently into U+FFFD.
var badJSONStrings = []string{"\"\xff\xfe\"", "\"\xc3\x28\"", `"a\u0000b"`, `"\ud800"`, `"x\udc00"`}

// TestBadTextIsRefusedEverywhere sends every operation of both contracts, as platform staff, with each
// path parameter, each query parameter and each top-level string field of a JSON body in turn set to
// a string PostgreSQL cannot store. Each must be refused as invalid (400 on /v1, 422 on /api) naming
// that value: never a 5xx, not even 501, since the refusal comes before the handler and an operation
// answering 501 refuses such input like the others. Other values are samples the contract
// accepts, so that the check reached is the one of the value under test.
func TestBadTextIsRefusedEverywhere(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	staff := env.User(t, env.Org(t), auth.RoleBackoffice)
	var sent, byGuard int
	for _, o := range operations(t) {
		want := http.StatusUnprocessableEntity
		if o.doc == "v1" {
			want = http.StatusBadRequest
		}
		params := append(append(openapi3.Parameters{}, o.item.Parameters...), o.op.Parameters...)
		try := func(what string, loc []any, path string, query url.Values, body string) {
			sent++
			status, text := sendAs(t, env, staff.Token, strings.ToUpper(o.method), path, query, body)
			if status != want {
				t.Errorf("%s %s (%s) with a bad %s %v: %d %s, want %d", o.method, o.path, o.id, what, loc, status, text, want)
				return
			}
			if !namesIt(text, loc) {
				t.Errorf("%s %s (%s) with a bad %s: %s does not name %v", o.method, o.path, o.id, what, text, loc)
			}
			if strings.Contains(string(text), "string_unicode") {
				byGuard++
			}
		}
		for _, p := range params {
			for _, bad := range badTexts {
				switch p.Value.In {
				case "path":
					path := strings.ReplaceAll(o.path, "{"+p.Value.Name+"}", url.PathEscape(bad))
					try("path parameter", []any{"path", p.Value.Name}, fillPath(path, params), sampleQuery(params, ""), requiredBody(o.op))
				case "query":
					q := sampleQuery(params, p.Value.Name)
					q.Set(p.Value.Name, bad)
					try("query parameter", []any{"query", p.Value.Name}, fillPath(o.path, params), q, requiredBody(o.op))
				}
			}
		}
		schema := jsonBody(o.op)
		if schema == nil {
			continue
		}
		for name, prop := range schema.Properties {
			if prop.Value == nil || !prop.Value.Type.Is("string") {
				continue
			}
			for _, bad := range badJSONStrings {
				body := sampleObject(schema, name, bad)
				try("body field", []any{"body", name}, fillPath(o.path, params), sampleQuery(params, ""), body)
			}
		}
	}
	// Where the contract constrains a value (a UUID, an enum, a pattern), the schema refuses it first.
	t.Logf("%d requests with bad text, all refused naming the value: %d for its text, the rest by its schema", sent, byGuard)
	if byGuard < sent/5 {
		t.Fatalf("only %d of %d requests reached the text check: the walk does not reach it", byGuard, sent)
	}
}

// TestBadTextNamesTheParameter checks the exact answer for a query value, a path id and a string deep
// in a JSON body.
func TestBadTextNamesTheParameter(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	staff := env.User(t, env.Org(t), auth.RoleBackoffice)
	api := []struct{ method, path, body, loc string }{
		{"GET", "/api/sso/providers/%00", "", "path.id"},
		{"DELETE", "/api/sso/providers/%00", "", "path.id"},
		{"GET", "/api/admin/organizations?name=%C3%28", "", "query.name"},
		{"POST", "/api/flows", `{"display_name":"a\u0000","definition":{}}`, "body.display_name"},
		{"POST", "/api/flows", `{"display_name":"x","definition":{"steps":["ok","\ud800"]}}`, "body.definition.steps.1"},
		{"POST", "/api/flows", "{\"display_name\":\"x\",\"definition\":{\"n\xff\":1}}", "body.definition.n\uFFFD"},
	}
	for _, tc := range api {
		u, _ := url.Parse(tc.path)
		status, body := sendAs(t, env, staff.Token, tc.method, u.EscapedPath(), u.Query(), tc.body)
		var vb validationBody
		if status != http.StatusUnprocessableEntity || json.Unmarshal(body, &vb) != nil || len(vb.Detail) != 1 {
			t.Fatalf("%s %s: %d %s, want 422 with one item", tc.method, tc.path, status, body)
		}
		if d := vb.Detail[0]; locString(d.Loc) != tc.loc || d.Type != "string_unicode" {
			t.Errorf("%s %s: detail %+v, want loc %s type string_unicode", tc.method, tc.path, d, tc.loc)
		}
	}
	for _, q := range []string{"searchTerm=%FF%FE", "workflowName=%C3%28"} {
		status, body := sendAs(t, env, staff.Token, "GET", "/v1/apps", mustQuery(q), "")
		var eb v1ErrorBody
		name := strings.Split(q, "=")[0]
		if status != http.StatusBadRequest || json.Unmarshal(body, &eb) != nil || len(eb.Error.Details) != 1 ||
			locString(eb.Error.Details[0].Loc) != "query."+name || !strings.Contains(eb.Error.Message, "UTF-8") {
			t.Errorf("GET /v1/apps?%s: %d %s, want 400 naming query.%s", q, status, body, name)
		}
	}
	// Surrogate pairs, escaped or not, are characters like any other.
	status, body := sendAs(t, env, staff.Token, "POST", "/api/flows", nil, `{"display_name":"\ud83d\ude00 😀","definition":{}}`)
	if status == http.StatusUnprocessableEntity {
		t.Errorf("a surrogate pair was refused: %d %s", status, body)
	}
}

// namesIt reports whether an answer of either style has an item whose location starts with loc.
func namesIt(answer []byte, loc []any) bool {
	var either struct {
		Detail []struct {
			Loc []any `json:"loc"`
		} `json:"detail"`
		Error struct {
			Details []struct {
				Loc []any `json:"loc"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(answer, &either) != nil {
		return false
	}
	want := locString(loc)
	for _, d := range append(either.Detail, either.Error.Details...) {
		if got := locString(d.Loc); got == want || strings.HasPrefix(got, want+".") {
			return true
		}
	}
	return false
}

func mustQuery(s string) url.Values {
	q, err := url.ParseQuery(s)
	if err != nil {
		panic(err)
	}
	return q
}

// sendAs sends a request with the caller's token and the anonymous key, so that both security schemes
// are satisfied, and returns the status and body.
func sendAs(t *testing.T, env *testkit.Env, token, method, path string, query url.Values, body string) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	u := env.URL + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequest(method, u, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("apikey", testkit.AnonKey)
	res, err := env.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}
