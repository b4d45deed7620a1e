package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestHealthcheck: the command reaches a server listening on every interface over loopback, and fails
// unless readiness answers 200.
func TestHealthcheck(t *testing.T) {
	t.Parallel()
	var status atomic.Int32
	status.Store(http.StatusOK)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/health/readiness" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(int(status.Load()))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var out bytes.Buffer
	env := envOf(map[string]string{"LOOPWORK_ADDR": "0.0.0.0:" + port})
	if err := run(context.Background(), []string{"healthcheck"}, &out, env); err != nil || !strings.HasPrefix(out.String(), "ready") {
		t.Fatalf("healthcheck of a ready server: %v %q", err, out.String())
	}
	status.Store(http.StatusServiceUnavailable)
	if err := run(context.Background(), []string{"healthcheck"}, &out, env); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("healthcheck of a server that is not ready: %v", err)
	}
}
