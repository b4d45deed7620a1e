package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/testkit"
)

// scenario is a client of both documents that goes through the Prism proxies with one caller's
// credential, and remembers the ids of what it created for the sweep.
type scenario struct {
	t      *testing.T
	client *http.Client
	base   map[string]string // document name -> its proxy's URL
	token  string
	ids    knownIDs
}

// as is the same scenario acting with another credential.
func (s *scenario) as(token string) *scenario {
	c := *s
	c.token = token
	return &c
}

// raw sends one request and answers the status and body. A body that is not a string or bytes is
// sent as JSON.
func (s *scenario) raw(doc, method, path string, body any, header ...string) (int, []byte) {
	s.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		r = bytes.NewReader(b)
	case string:
		r = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			s.t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, s.base[doc]+path, r)
	if err != nil {
		s.t.Fatal(err)
	}
	if r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	req.Header.Set("apikey", testkit.AnonKey)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := s.client.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// call sends one request and decodes a JSON object answer. An answer with another status than want
// fails the test but not the scenario: later steps still run, so that one run shows every problem.
func (s *scenario) call(doc, method, path string, body any, want ...int) jsonObj {
	s.t.Helper()
	status, b := s.raw(doc, method, path, body)
	if !slices.Contains(want, status) {
		s.t.Errorf("scenario: %s %s answered %d, want %v: %.600s", method, path, status, want, b)
		return jsonObj{}
	}
	var out jsonObj
	_ = json.Unmarshal(b, &out)
	return out
}

// api and v1 are call on one document.
func (s *scenario) api(method, path string, body any, want ...int) jsonObj {
	s.t.Helper()
	return s.call("api", method, path, body, want...)
}

func (s *scenario) v1(method, path string, body any, want ...int) jsonObj {
	s.t.Helper()
	return s.call("v1", method, path, body, want...)
}

// clients are the generated clients of both documents, through the proxies, with the scenario's
// credential: for the steps that testkit's helpers already take with them.
func (s *scenario) clients() (*platformapi.ClientWithResponses, *v1api.ClientWithResponses) {
	edit := func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+s.token)
		return nil
	}
	api, err := platformapi.NewClientWithResponses(s.base["api"], platformapi.WithHTTPClient(s.client), platformapi.WithRequestEditorFn(edit))
	if err != nil {
		s.t.Fatal(err)
	}
	v1c, err := v1api.NewClientWithResponses(s.base["v1"], v1api.WithHTTPClient(s.client), v1api.WithRequestEditorFn(edit))
	if err != nil {
		s.t.Fatal(err)
	}
	return api, v1c
}

// jsonObj is a decoded JSON object with lenient accessors: a missing field reads as its zero value, and
// the scenario's status checks already say what went wrong.
type jsonObj map[string]any

func (o jsonObj) str(key string) string {
	switch v := o[key].(type) {
	case string:
		return v
	case float64:
		return fmt.Sprint(int64(v))
	}
	return ""
}

func (o jsonObj) list(key string) []jsonObj {
	var out []jsonObj
	items, _ := o[key].([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
