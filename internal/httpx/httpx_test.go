package httpx_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/oklog/ulid/v2"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

type errorBody struct {
	Error struct {
		Message string  `json:"message"`
		Code    *string `json:"code"`
		Details any     `json:"details"`
	} `json:"error"`
	RequestID string `json:"request_id"`
}

type notImpl struct{}

func (notImpl) Error() string                   { return "x" }
func (notImpl) NotImplementedOperation() string { return "DoThing" }

func newEcho(t *testing.T) *echo.Echo {
	t.Helper()
	e := httpx.NewEcho(httpx.EchoOptions{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), BodyLimit: "1K", CORSOrigins: "*"})
	e.GET("/panic", func(echo.Context) error { panic("boom") })
	e.POST("/echo", func(c echo.Context) error {
		b, err := io.ReadAll(c.Request().Body)
		if err != nil {
			return err
		}
		return c.String(http.StatusOK, fmt.Sprint(len(b)))
	})
	e.GET("/err/:kind", func(c echo.Context) error {
		switch c.Param("kind") {
		case "notfound":
			return fmt.Errorf("load: %w", dbx.ErrNotFound)
		case "conflict":
			return &dbx.ConstraintError{Kind: dbx.ErrConflict, Constraint: "apps_name_key"}
		case "pending":
			return notImpl{}
		case "typed":
			return httpx.Conflict("name %q is taken", "x")
		case "secret":
			return errors.New("pq: password authentication failed for user admin")
		}
		return nil
	})
	return e
}

func do(t *testing.T, e *echo.Echo, method, path string, body io.Reader, hdr map[string]string) (*httptest.ResponseRecorder, errorBody) {
	t.Helper()
	req := httptest.NewRequest(method, path, body)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	var eb errorBody
	if rec.Code >= 400 {
		if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil {
			t.Fatalf("%s %s: error body is not JSON: %q", method, path, rec.Body.String())
		}
		if eb.RequestID == "" || eb.RequestID != rec.Header().Get(httpx.HeaderRequestID) {
			t.Fatalf("request_id %q does not repeat the X-Request-ID header %q", eb.RequestID, rec.Header().Get(httpx.HeaderRequestID))
		}
	}
	return rec, eb
}

func TestErrorsMappedOnce(t *testing.T) {
	t.Parallel()
	e := newEcho(t)
	cases := []struct {
		path, code string
		status     int
	}{
		{"/panic", "internal_error", 500},
		{"/err/notfound", "not_found", 404},
		{"/err/conflict", "conflict", 409},
		{"/err/pending", "not_implemented", 501},
		{"/err/typed", "conflict", 409},
		{"/err/secret", "internal_error", 500},
		{"/no/such/route", "not_found", 404},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			rec, eb := do(t, e, http.MethodGet, tc.path, nil, nil)
			if rec.Code != tc.status || eb.Error.Code == nil || *eb.Error.Code != tc.code {
				t.Fatalf("got %d %v, want %d %s: %s", rec.Code, eb.Error.Code, tc.status, tc.code, rec.Body.String())
			}
			if strings.Contains(rec.Body.String(), "password") || strings.Contains(rec.Body.String(), "boom") {
				t.Fatalf("internal detail leaked: %s", rec.Body.String())
			}
		})
	}
}

func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	rec, eb := do(t, newEcho(t), http.MethodDelete, "/echo", nil, nil)
	if rec.Code != http.StatusMethodNotAllowed || *eb.Error.Code != "method_not_allowed" {
		t.Fatalf("got %d %s", rec.Code, rec.Body.String())
	}
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	e := newEcho(t)
	rec, _ := do(t, e, http.MethodPost, "/echo", strings.NewReader(strings.Repeat("a", 1000)), nil)
	if rec.Code != 200 {
		t.Fatalf("body under the limit: %d", rec.Code)
	}
	const msg = "request body larger than 1 KiB (LOOPWORK_BODY_LIMIT)"
	rec, eb := do(t, e, http.MethodPost, "/echo", strings.NewReader(strings.Repeat("a", 5000)), nil)
	if rec.Code != http.StatusRequestEntityTooLarge || *eb.Error.Code != "request_too_large" || eb.Error.Message != msg {
		t.Fatalf("body over the limit: %d %s", rec.Code, rec.Body.String())
	}
	// A body of unknown length is cut off at the limit with the same answer; one exactly at it passes.
	for _, size := range []int{1024, 1025, 5000} {
		req := httptest.NewRequest(http.MethodPost, "/echo", strings.NewReader(strings.Repeat("a", size)))
		req.ContentLength = -1
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if want := size <= 1024; want != (rec.Code == http.StatusOK) || (!want && !strings.Contains(rec.Body.String(), msg)) {
			t.Fatalf("%d bytes of unknown length: %d %s", size, rec.Code, rec.Body.String())
		}
	}
}

func TestRequestID(t *testing.T) {
	t.Parallel()
	e := newEcho(t)
	rec, _ := do(t, e, http.MethodPost, "/echo", strings.NewReader("x"), nil)
	id := rec.Header().Get(httpx.HeaderRequestID)
	if _, err := ulid.ParseStrict(id); err != nil {
		t.Fatalf("X-Request-ID %q is not a ULID: %v", id, err)
	}
	mine := ulid.Make().String()
	rec, _ = do(t, e, http.MethodPost, "/echo", strings.NewReader("x"), map[string]string{httpx.HeaderRequestID: mine})
	if got := rec.Header().Get(httpx.HeaderRequestID); got != mine {
		t.Fatalf("a caller's valid ULID is kept: got %q want %q", got, mine)
	}
	rec, _ = do(t, e, http.MethodPost, "/echo", strings.NewReader("x"), map[string]string{httpx.HeaderRequestID: "<script>"})
	if got := rec.Header().Get(httpx.HeaderRequestID); got == "<script>" {
		t.Fatal("an invalid caller id must be replaced")
	}
}
