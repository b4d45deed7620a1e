package httpx_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/loopwork/loopwork/internal/httpx"
)

const doc = `{"id": 7, "name": "app", "settings": {"a": 1, "b": {"c": 2, "d": 3}},
  "jobs": [{"id": 1, "status": "DONE", "tags": ["x"]}, {"id": 2, "status": "NEW", "tags": []}],
  "owner": null, "grid": [[{"id": 1, "v": 2}], []], "note": "a \"quoted\" <b>"}`

// compact renders JSON without spaces, to compare documents by text (fields keep their order).
func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("not JSON: %v: %s", err, s)
	}
	return b.String()
}

// TestMaskApply: names keep fields in the document's order; nested masks apply to objects and to each
// element of arrays (arrays of arrays too); `*` keeps a whole level with named fields still masked;
// unknown names are ignored; a nested mask on a scalar or null keeps the value.
func TestMaskApply(t *testing.T) {
	t.Parallel()
	cases := []struct{ mask, want string }{
		{"id,name", `{"id":7,"name":"app"}`},
		{"name,id", `{"id":7,"name":"app"}`},
		{"{id,name}", `{"id":7,"name":"app"}`},
		{" { id , name } ", `{"id":7,"name":"app"}`},
		{"id,", `{"id":7}`},
		{"id,missing", `{"id":7}`},
		{"missing", `{}`},
		{"settings", `{"settings":{"a":1,"b":{"c":2,"d":3}}}`},
		{"settings{b{d}}", `{"settings":{"b":{"d":3}}}`},
		{"{id,jobs{id,status}}", `{"id":7,"jobs":[{"id":1,"status":"DONE"},{"id":2,"status":"NEW"}]}`},
		{"jobs{tags}", `{"jobs":[{"tags":["x"]},{"tags":[]}]}`},
		{"grid{v}", `{"grid":[[{"v":2}],[]]}`},
		{"jobs{}", `{"jobs":[{},{}]}`},
		{"id{x},owner{y}", `{"id":7,"owner":null}`},
		{"*", compact(t, doc)},
		{"*,missing", compact(t, doc)},
		{"{*,jobs{id},settings{a}}", `{"id":7,"name":"app","settings":{"a":1},"jobs":[{"id":1},{"id":2}],"owner":null,"grid":[[{"id":1,"v":2}],[]],"note":"a \"quoted\" <b>"}`},
		{"note", `{"note":"a \"quoted\" <b>"}`},
		// One name twice: the whole value wins over a nested mask, nested masks add up.
		{"jobs{id},jobs", `{"jobs":[{"id":1,"status":"DONE","tags":["x"]},{"id":2,"status":"NEW","tags":[]}]}`},
		{"jobs{id},jobs{status}", `{"jobs":[{"id":1,"status":"DONE"},{"id":2,"status":"NEW"}]}`},
		{"settings{b{c}},settings{b{d}}", `{"settings":{"b":{"c":2,"d":3}}}`},
	}
	for _, tc := range cases {
		m, err := httpx.ParseMask(tc.mask)
		if err != nil || m == nil {
			t.Fatalf("ParseMask(%q): %v, %v", tc.mask, m, err)
		}
		got, err := m.Apply([]byte(doc))
		if err != nil {
			t.Fatalf("%q: %v", tc.mask, err)
		}
		if compact(t, string(got)) != compact(t, tc.want) {
			t.Fatalf("mask %q:\n got %s\nwant %s", tc.mask, got, tc.want)
		}
	}
	// Top-level arrays and scalars.
	m, _ := httpx.ParseMask("id")
	if got, _ := m.Apply([]byte(`[{"id":1,"x":2},{"x":3},5]`)); string(got) != `[{"id":1},{},5]` {
		t.Fatalf("array: %s", got)
	}
	if got, _ := m.Apply([]byte(` 42 `)); string(got) != `42` {
		t.Fatalf("scalar: %s", got)
	}
	// Numbers and strings are copied byte for byte.
	if got, _ := m.Apply([]byte(`{"id":12345678901234567890.50,"n":1}`)); string(got) != `{"id":12345678901234567890.50}` {
		t.Fatalf("number: %s", got)
	}
}

// TestParseMask: empty masks mean no filtering; malformed ones are refused with their position.
func TestParseMask(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "   ", "{}", " { } "} {
		if m, err := httpx.ParseMask(s); m != nil || err != nil {
			t.Fatalf("ParseMask(%q) = %v, %v; want no mask", s, m, err)
		}
	}
	bad := map[string]string{
		"{":          "closing '}'",
		"{id":        "closing '}'",
		"id{name":    `closing '}' of the mask of "id"`,
		"}":          "unexpected '}' at position 1",
		"id}":        "unexpected '}' at position 3",
		"{id}}":      "unexpected '}' at position 5",
		",id":        "unexpected ',' at position 1",
		"id,,name":   "unexpected ',' at position 4",
		"{,}":        "unexpected ','",
		"id name":    "misses a ','",
		"a{b}c":      "misses a ','",
		"{{id}}":     "follows no field name",
		"id,{name}":  "follows no field name",
		"*{id}":      "after '*'",
		"a{b{c{d}}}": "",
	}
	for s, want := range bad {
		m, err := httpx.ParseMask(s)
		if want == "" {
			if err != nil {
				t.Fatalf("ParseMask(%q): %v", s, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("ParseMask(%q) = %v, %v; want an error with %q", s, m, err, want)
		}
	}
	if _, err := httpx.ParseMask(strings.Repeat("a{", 40) + strings.Repeat("}", 40)); err == nil || !strings.Contains(err.Error(), "levels deep") {
		t.Fatalf("deep nesting: %v", err)
	}
	if _, err := httpx.ParseMask(strings.Repeat("a,", 1001)); err == nil || !strings.Contains(err.Error(), "longer than 2000") {
		t.Fatalf("long mask: %v", err)
	}
}

// TestXFieldsMiddleware: through echo, a 2xx JSON body is masked with a correct Content-Length; a
// malformed mask is 400 naming the header and the handler never runs; errors, 204 and non-JSON replies
// pass through untouched; without the header nothing changes.
func TestXFieldsMiddleware(t *testing.T) {
	t.Parallel()
	e := httpx.NewEcho(httpx.EchoOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), BodyLimit: "1K", CORSOrigins: "*"})
	ran := 0
	g := e.Group("", httpx.XFields())
	g.GET("/json", func(c echo.Context) error {
		ran++
		return c.JSONBlob(http.StatusAccepted, []byte(doc))
	})
	g.GET("/text", func(c echo.Context) error { return c.String(http.StatusOK, `{"id":1,"x":2}`) })
	g.GET("/none", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) })
	g.GET("/fail", func(c echo.Context) error { return httpx.Conflict("taken") })
	g.GET("/stream", func(c echo.Context) error {
		c.Response().Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
		c.Response().WriteHeader(http.StatusOK)
		for _, part := range []string{`{"id":`, `1,`, `"x":2}`} {
			if _, err := c.Response().Write([]byte(part)); err != nil {
				return err
			}
			c.Response().Flush()
		}
		return nil
	})

	get := func(path, mask string, set bool) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if set {
			req.Header.Set("X-Fields", mask)
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec
	}
	rec := get("/json", "{id,jobs{status}}", true)
	if rec.Code != http.StatusAccepted || compact(t, rec.Body.String()) != `{"id":7,"jobs":[{"status":"DONE"},{"status":"NEW"}]}` {
		t.Fatalf("masked: %d %s", rec.Code, rec.Body.String())
	}
	if rec.Header().Get("Content-Length") != strconv.Itoa(rec.Body.Len()) {
		t.Fatalf("Content-Length %q for a body of %d bytes", rec.Header().Get("Content-Length"), rec.Body.Len())
	}
	if rec.Header().Get(httpx.HeaderRequestID) == "" || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("headers lost: %v", rec.Header())
	}
	if rec := get("/stream", "id", true); rec.Code != 200 || rec.Body.String() != `{"id":1}`+"\n" {
		t.Fatalf("written in parts: %d %q", rec.Code, rec.Body.String())
	}
	if rec := get("/json", "", false); rec.Body.String() != doc {
		t.Fatalf("without the header: %s", rec.Body.String())
	}
	if rec := get("/json", " ", true); rec.Body.String() != doc {
		t.Fatalf("with an empty header: %s", rec.Body.String())
	}

	before := ran
	rec = get("/json", "id{", true)
	var eb errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil || rec.Code != http.StatusBadRequest || *eb.Error.Code != "validation_failed" ||
		!strings.Contains(eb.Error.Message, "X-Fields") {
		t.Fatalf("malformed mask: %d %s", rec.Code, rec.Body.String())
	}
	if d, _ := json.Marshal(eb.Error.Details); !strings.Contains(string(d), `["header","X-Fields"]`) {
		t.Fatalf("details do not locate the header: %s", d)
	}
	if ran != before {
		t.Fatal("the handler ran for a malformed mask")
	}

	if rec := get("/text", "id", true); rec.Body.String() != `{"id":1,"x":2}` {
		t.Fatalf("text reply: %s", rec.Body.String())
	}
	if rec := get("/none", "id", true); rec.Code != http.StatusNoContent || rec.Body.Len() != 0 {
		t.Fatalf("204: %d %q", rec.Code, rec.Body.String())
	}
	rec = get("/fail", "id", true)
	if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil || rec.Code != http.StatusConflict || eb.Error.Message != "taken" || eb.RequestID == "" {
		t.Fatalf("error reply: %d %s", rec.Code, rec.Body.String())
	}
}
