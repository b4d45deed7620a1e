package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/testkit"
)

// testToken is the one credential the test authenticator accepts.
const testToken = "Bearer test-token"

func testAuthenticator(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	h := in.RequestValidationInput.Request.Header
	if h.Get("Authorization") == testToken || h.Get("apikey") == "test-anon" {
		return nil
	}
	return httpx.Unauthorized("missing or invalid credentials")
}

// samplePath fills path parameters with values their schemas accept.
func samplePath(path string, op *openapi3.Operation, item *openapi3.PathItem) string {
	params := append(openapi3.Parameters{}, item.Parameters...)
	params = append(params, op.Parameters...)
	for _, p := range params {
		if p.Value == nil || p.Value.In != "path" {
			continue
		}
		v := "sample"
		if s := p.Value.Schema; s != nil && s.Value != nil {
			switch {
			case s.Value.Format == "uuid":
				v = "5b0c9b9e-3c1d-4c55-9a52-9c3e2a7f5d11"
			case s.Value.Type.Is("integer"), s.Value.Type.Is("number"):
				v = "1"
			}
		}
		path = strings.ReplaceAll(path, "{"+p.Value.Name+"}", v)
	}
	return path
}

type operation struct {
	doc, method, path, id string
	op                    *openapi3.Operation
	item                  *openapi3.PathItem
}

func operations(t *testing.T) []operation {
	t.Helper()
	var out []operation
	for _, d := range []struct {
		name string
		raw  []byte
	}{{"api", platformapi.OpenAPIJSON}, {"v1", v1api.OpenAPIJSON}} {
		doc, err := openapi3.NewLoader().LoadFromData(d.raw)
		if err != nil {
			t.Fatal(err)
		}
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				out = append(out, operation{d.name, method, path, op.OperationID, op, item})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].doc+out[i].id < out[j].doc+out[j].id })
	return out
}

// TestEveryOperationIsRouted sends each operation of both contracts to the server, without and with
// credentials: none may fall through to "no route" or "method not allowed", and every answer must
// validate against the contract (the client's transport checks that).
func TestEveryOperationIsRouted(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithAuthenticator(testAuthenticator))
	ops := operations(t)
	if len(ops) < 129+63 {
		t.Fatalf("only %d operations in the contracts", len(ops))
	}
	for _, o := range ops {
		for _, auth := range []bool{false, true} {
			req, err := http.NewRequest(strings.ToUpper(o.method), env.URL+samplePath(o.path, o.op, o.item), nil)
			if err != nil {
				t.Fatal(err)
			}
			if auth {
				req.Header.Set("Authorization", testToken)
				req.Header.Set("apikey", "test-anon")
			}
			res, err := env.HTTP.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusMethodNotAllowed || strings.Contains(string(body), "no route matches") {
				t.Errorf("%s %s (%s): not routed: %d %s", o.method, o.path, o.id, res.StatusCode, body)
			}
			secured := o.op.Security == nil || len(*o.op.Security) > 0
			if !auth && secured && res.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s %s (%s) without credentials answered %d, want 401", o.method, o.path, o.id, res.StatusCode)
			}
		}
	}
}

type validationBody struct {
	Detail []struct {
		Loc  []any  `json:"loc"`
		Msg  string `json:"msg"`
		Type string `json:"type"`
	} `json:"detail"`
	RequestID string `json:"request_id"`
}

type v1ErrorBody struct {
	Error struct {
		Message string `json:"message"`
		Code    string `json:"code"`
		Details []struct {
			Loc []any  `json:"loc"`
			Msg string `json:"msg"`
		} `json:"details"`
	} `json:"error"`
	RequestID string `json:"request_id"`
}

func send(t *testing.T, env *testkit.Env, method, path, body string, auth bool) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, env.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth {
		req.Header.Set("Authorization", testToken)
	}
	res, err := env.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

func locString(loc []any) string {
	parts := make([]string, len(loc))
	for i, l := range loc {
		b, _ := json.Marshal(l)
		parts[i] = strings.Trim(string(b), `"`)
	}
	return strings.Join(parts, ".")
}

// TestValidationNamesTheProblem checks that malformed input never reaches a handler and that the
// answer says which parameter or field was wrong: 422 HTTPValidationError on /api, 400 ErrorResponse
// on /v1, and 401 before either for a caller without credentials.
func TestValidationNamesTheProblem(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithAuthenticator(testAuthenticator))
	const app = "/v1/apps/5b0c9b9e-3c1d-4c55-9a52-9c3e2a7f5d11"
	api := []struct {
		name, method, path, body, loc, typ string
	}{
		{"limit above maximum", "GET", "/api/flows?limit=1000", "", "query.limit", "less_than_equal"},
		{"limit not a number", "GET", "/api/flows?limit=ten", "", "query.limit", "parsing"},
		{"malformed uuid in path", "GET", "/api/flows/not-a-uuid", "", "path.id", "format"},
		{"missing required field", "POST", "/api/flows", `{"definition":{}}`, "body.display_name", "missing"},
		{"string too long", "POST", "/api/flows", `{"display_name":"` + strings.Repeat("x", 256) + `","definition":{}}`, "body.display_name", "string_too_long"},
		{"wrong type", "POST", "/api/flows", `{"display_name":7,"definition":{}}`, "body.display_name", "type_error"},
		{"malformed json", "POST", "/api/flows", `{"display_name":`, "body", ""},
		{"enum", "PATCH", "/api/flows/5b0c9b9e-3c1d-4c55-9a52-9c3e2a7f5d11", `{"status":"archived"}`, "body.status", "enum"},
		{"batch too large", "PATCH", "/api/task-tags", `{"tags":[]}`, "body.tags", "too_short"},
		{"undeclared query parameter", "GET", "/api/flows?limitt=5", "", "query.limitt", "extra_forbidden"},
	}
	for _, tc := range api {
		t.Run("api/"+tc.name, func(t *testing.T) {
			status, body := send(t, env, tc.method, tc.path, tc.body, true)
			var vb validationBody
			if status != http.StatusUnprocessableEntity || json.Unmarshal(body, &vb) != nil || len(vb.Detail) == 0 {
				t.Fatalf("got %d %s, want 422 HTTPValidationError", status, body)
			}
			d := vb.Detail[0]
			if got := locString(d.Loc); !strings.HasPrefix(got, tc.loc) || (tc.typ != "" && d.Type != tc.typ) || d.Msg == "" {
				t.Fatalf("detail %+v: want loc %s type %s", d, tc.loc, tc.typ)
			}
			if vb.RequestID == "" {
				t.Fatal("validation error without request_id")
			}
			if s, _ := send(t, env, tc.method, tc.path, tc.body, false); s != http.StatusUnauthorized {
				t.Fatalf("without credentials: %d, want 401 before validation", s)
			}
		})
	}
	v1 := []struct {
		name, method, path, param string
	}{
		{"size zero", "GET", "/v1/apps?size=0", "size"},
		{"orderBy enum", "GET", "/v1/apps?orderBy=sideways", "orderBy"},
		{"cancel accepts only four states", "POST", app + "/cancel?statusIn=COMPLETED", "statusIn"},
		{"bad date", "GET", app + "/jobs?createdStartDate=yesterday", "createdStartDate"},
		{"path without braces", "GET", app + "/jobs?inputPath=a.b", "inputPath"},
		{"correct enum", "GET", app + "/jobs/count?correct=maybe", "correct"},
		{"id not an integer", "GET", app + "/jobs/ids?idGreaterThan=x", "idGreaterThan"},
		{"clone mode", "POST", app + "/clone?cloneMode=EVERYTHING", "cloneMode"},
		{"dataset id required", "GET", app + "/measurer/confidences", "dataset_id"},
		{"filter outside the route's set", "GET", app + "/jobs/ids?statusIn=SCHEDULED", "statusIn"},
		{"misspelt parameter", "GET", "/v1/apps?sizee=5", "sizee"},
	}
	for _, tc := range v1 {
		t.Run("v1/"+tc.name, func(t *testing.T) {
			status, body := send(t, env, tc.method, tc.path, "", true)
			var eb v1ErrorBody
			if status != http.StatusBadRequest || json.Unmarshal(body, &eb) != nil || eb.Error.Code != "validation_failed" {
				t.Fatalf("got %d %s, want 400 validation_failed", status, body)
			}
			if !strings.Contains(eb.Error.Message, tc.param) || len(eb.Error.Details) == 0 || !strings.Contains(locString(eb.Error.Details[0].Loc), tc.param) {
				t.Fatalf("message %q / details %+v do not name %s", eb.Error.Message, eb.Error.Details, tc.param)
			}
		})
	}
}

// TestOversizedBody refuses a body over the configured limit on both interfaces, whether its length is
// declared or not, with an ErrorResponse that says the limit and the setting that raises it.
func TestOversizedBody(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithAuthenticator(testAuthenticator))
	// As a client sending a large body should, it asks for 100-continue, so a refusal on the declared
	// length comes before the body is sent; and the body is just over the limit, so the server reads
	// what a refusal after reading leaves unread instead of resetting the connection under the writer.
	big := `{"display_name":"x","definition":{"pad":"` + strings.Repeat("a", 10<<20+64<<10) + `"}}`
	client := &http.Client{Transport: &testkit.ContractTransport{T: t, Base: &http.Transport{ExpectContinueTimeout: 10 * time.Second}}}
	for _, path := range []string{"/api/flows", "/v1/apps"} {
		for _, declared := range []bool{true, false} {
			var body io.Reader = strings.NewReader(big)
			if !declared {
				body = io.MultiReader(body) // a reader of unknown length is sent chunked
			}
			req, err := http.NewRequest(http.MethodPost, env.URL+path, body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", testToken)
			req.Header.Set("Expect", "100-continue")
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var eb v1ErrorBody
			err = json.NewDecoder(res.Body).Decode(&eb)
			res.Body.Close()
			if res.StatusCode != http.StatusRequestEntityTooLarge || err != nil || eb.Error.Code != "request_too_large" ||
				eb.Error.Message != "request body larger than 10 MiB (LOOPWORK_BODY_LIMIT)" {
				t.Errorf("%s, length declared %v: %d %+v, want 413 naming the limit", path, declared, res.StatusCode, eb)
			}
		}
	}
}
