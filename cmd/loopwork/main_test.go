package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/testkit"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestVersionAndUsage(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"version"}, &out, envOf(nil)); err != nil || !strings.HasPrefix(out.String(), "loopwork ") {
		t.Fatalf("version: %v %q", err, out.String())
	}
	if err := run(context.Background(), []string{"frobnicate"}, &out, envOf(nil)); err == nil {
		t.Fatal("unknown command accepted")
	}
}

func TestInvalidConfigurationStopsStartUp(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	err := run(context.Background(), []string{"serve"}, &out, envOf(map[string]string{"LOOPWORK_ADDR": "nowhere"}))
	if err == nil || !strings.Contains(err.Error(), "LOOPWORK_ADDR") {
		t.Fatalf("error %v does not name LOOPWORK_ADDR", err)
	}
	err = run(context.Background(), []string{"serve"}, &out, envOf(nil))
	if err == nil || !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Fatalf("error %v does not name DATABASE_URL", err)
	}
	err = run(context.Background(), []string{"serve"}, &out, envOf(map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1:1/x"}))
	if err == nil || !strings.Contains(err.Error(), "LOOPWORK_ENCRYPTION_KEY") {
		t.Fatalf("error %v does not name LOOPWORK_ENCRYPTION_KEY", err)
	}
}

func TestMigrateCommands(t *testing.T) {
	t.Parallel()
	db := testkit.EmptyDB(t)
	e := envOf(map[string]string{"DATABASE_URL": testkit.DSN(t, db), "LOOPWORK_LOG_LEVEL": "error"})
	ctx := context.Background()
	var out bytes.Buffer
	for _, step := range []struct{ cmd, want string }{
		{"status", "pending"},
		{"up", "applied"},
		{"up", "no pending migrations"},
		{"down", "rolled back"},
		{"reset", "rolled back"},
		{"up", "applied"},
	} {
		out.Reset()
		if err := run(ctx, []string{"migrate", step.cmd}, &out, e); err != nil {
			t.Fatalf("migrate %s: %v", step.cmd, err)
		}
		if !strings.Contains(out.String(), step.want) {
			t.Fatalf("migrate %s printed %q, want %q", step.cmd, out.String(), step.want)
		}
	}
}

// freeAddr is a free address on a port below the range the kernel hands out for port 0: serve listens
// only after it has migrated, and meanwhile a parallel test's server asking for any port (TestHealthcheck's
// answers 200 to readiness) could be given one freed there.
func freeAddr(t *testing.T) string {
	t.Helper()
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		_, _ = fmt.Sscan(string(b), &low)
	}
	for range 100 {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", 1024+rand.IntN(max(low-1024, 1))))
		if err == nil {
			defer ln.Close()
			return ln.Addr().String()
		}
	}
	t.Fatal("no free port below the kernel's range for port 0")
	return ""
}

// TestServeMigratesServesAndShutsDown runs the real command: it migrates an empty database, answers
// readiness, and returns cleanly when its context ends (as on SIGTERM).
func TestServeMigratesServesAndShutsDown(t *testing.T) {
	t.Parallel()
	db := testkit.EmptyDB(t)
	addr := freeAddr(t)
	e := envOf(map[string]string{"DATABASE_URL": testkit.DSN(t, db), "LOOPWORK_ADDR": addr, "LOOPWORK_LOG_LEVEL": "error",
		"LOOPWORK_ENCRYPTION_KEY": testkit.EncryptionKey})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve"}, &bytes.Buffer{}, e) }()

	url := fmt.Sprintf("http://%s/health/readiness", addr)
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(url)
		if err == nil {
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode == 200 && strings.Contains(string(body), "ready to take traffic") {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server never became ready: %v", err)
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited early: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v on shutdown", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not shut down")
	}
}
