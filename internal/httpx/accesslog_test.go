package httpx_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/loopwork/loopwork/internal/httpx"
)

// logLines serves one request with a JSON logger and answers the lines it logged.
func logLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	var buf bytes.Buffer
	e := httpx.NewEcho(httpx.EchoOptions{Logger: slog.New(slog.NewJSONHandler(&buf, nil)), BodyLimit: "1K", CORSOrigins: "*"})
	e.GET("/err/:kind", func(c echo.Context) error {
		if c.Param("kind") == "pending" {
			return notImpl{}
		}
		return echo.NewHTTPError(http.StatusInternalServerError)
	})
	e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// A 501 answer is expected where a server has nothing behind an operation: one warning that names it, not two errors.
func TestNotImplementedLogsOneWarning(t *testing.T) {
	t.Parallel()
	lines := logLines(t, "/err/pending")
	if len(lines) != 1 {
		t.Fatalf("%d log lines, want 1: %v", len(lines), lines)
	}
	l := lines[0]
	if l["level"] != "WARN" || l["status"] != float64(501) || l["operation"] != "doThing" {
		t.Errorf("log line %v, want level WARN, status 501 and operation doThing", l)
	}
}

// A real failure is still an error: the error handler's line with the internal detail, and the access log.
func TestServerErrorLogsErrors(t *testing.T) {
	t.Parallel()
	lines := logLines(t, "/err/boom")
	if len(lines) != 2 {
		t.Fatalf("%d log lines, want 2: %v", len(lines), lines)
	}
	for _, l := range lines {
		if l["level"] != "ERROR" {
			t.Errorf("log line %v, want level ERROR", l)
		}
	}
}
