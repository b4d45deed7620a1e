package httpx_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/loopwork/loopwork/internal/httpx"
)

func textEcho(t *testing.T, style httpx.ValidationStyle) *echo.Echo {
	e := newEcho(t)
	e.POST("/items/:id", func(c echo.Context) error {
		// The handler still reads the whole body after the guard has.
		var v any
		if err := json.NewDecoder(c.Request().Body).Decode(&v); err != nil {
			return httpx.BadRequest("bad_json", "%v", err)
		}
		return c.NoContent(http.StatusNoContent)
	}, httpx.TextGuard(style))
	return e
}

// TestTextGuard finds the string PostgreSQL would refuse wherever the request carries it, and lets
// through everything else, escaped or not.
func TestTextGuard(t *testing.T) {
	e := textEcho(t, httpx.Style422)
	cases := []struct {
		name, path, body, loc string // loc "" passes
	}{
		{"plain", "/items/1?q=ok", `{"a":"b","n":[1,2.5e3,true,null,{}],"e":"\n\"\\u0000 is text"}`, ""},
		{"accents and pairs", "/items/%C3%A9?q=%E2%9C%93", `{"a":"é ✓ 😀 \ud83d\ude00 \u00e9"}`, ""},
		{"escaped backslash before u0000", "/items/1", `{"a":"\\u0000"}`, ""},
		{"path NUL", "/items/%00", `{}`, "path.id"},
		{"query not UTF-8", "/items/1?q=%FF%FE", `{}`, "query.q"},
		{"second query value", "/items/1?q=ok&q=a%00", `{}`, "query.q"},
		{"NUL escape", "/items/1", `{"a":{"b":[{"c":"x"},{"c":"y\u0000"}]}}`, "body.a.b.1.c"},
		{"raw bytes", "/items/1", "{\"tags\":[{\"name\":\"\xc3\x28\"}]}", "body.tags.0.name"},
		{"lone high surrogate", "/items/1", `{"a":"\uD800x"}`, "body.a"},
		{"lone low surrogate", "/items/1", `["\udc00"]`, "body.0"},
		{"high surrogate at the end", "/items/1", `{"a":"\ud800"}`, "body.a"},
		{"field name", "/items/1", `{"k\u0000":1}`, "body.k\u0000"},
		{"top-level string", "/items/1", `"\u0000"`, "body"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json; charset=utf-8")
			e.ServeHTTP(rec, req)
			if tc.loc == "" {
				if rec.Code != http.StatusNoContent {
					t.Fatalf("got %d %s, want 204", rec.Code, rec.Body)
				}
				return
			}
			var vb struct {
				Detail []httpx.ValidationItem `json:"detail"`
			}
			if rec.Code != http.StatusUnprocessableEntity || json.Unmarshal(rec.Body.Bytes(), &vb) != nil || len(vb.Detail) != 1 {
				t.Fatalf("got %d %s, want 422 with one item", rec.Code, rec.Body)
			}
			parts := make([]string, len(vb.Detail[0].Loc))
			for i, l := range vb.Detail[0].Loc {
				b, _ := json.Marshal(l)
				parts[i] = strings.Trim(string(b), `"`)
			}
			if got := strings.Join(parts, "."); got != strings.ReplaceAll(tc.loc, "\u0000", `\u0000`) || vb.Detail[0].Type != "string_unicode" {
				t.Fatalf("item %+v, want loc %s", vb.Detail[0], tc.loc)
			}
		})
	}
}

// TestTextGuardStyle400 answers /v1's ErrorResponse, and leaves bodies that are not JSON alone.
func TestTextGuardStyle400(t *testing.T) {
	e := textEcho(t, httpx.Style400)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/items/1?searchTerm=%C3%28", nil))
	var eb errorBody
	if rec.Code != http.StatusBadRequest || json.Unmarshal(rec.Body.Bytes(), &eb) != nil ||
		eb.Error.Message != "query.searchTerm: is not valid UTF-8" {
		t.Fatalf("got %d %s", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/items/1", strings.NewReader("\"\xff\x00\""))
	req.Header.Set("Content-Type", "application/octet-stream")
	e.ServeHTTP(rec, req)
	if rec.Code == http.StatusBadRequest && strings.Contains(rec.Body.String(), "string_unicode") {
		t.Fatalf("a binary body was scanned: %s", rec.Body)
	}
}

// BenchmarkTextGuard measures a typical /v1 job request (the fast path) with and without the guard.
func BenchmarkTextGuard(b *testing.B) {
	body := `{"input":{"text":"` + strings.Repeat("lorem ipsum dolor sit amet ", 40) + `","n":1},"tags":["a","b"],"workflowName":"w"}`
	for _, guarded := range []bool{false, true} {
		e := echo.New()
		var mw []echo.MiddlewareFunc
		if guarded {
			mw = append(mw, httpx.TextGuard(httpx.Style400))
		}
		e.POST("/items/:id", func(c echo.Context) error { return c.NoContent(http.StatusNoContent) }, mw...)
		b.Run(map[bool]string{false: "without", true: "with"}[guarded], func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/items/5b0c9b9e?size=10&searchTerm=abc", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				e.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}
