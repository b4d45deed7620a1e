package testkit

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// OtherPostgres starts a second, throwaway PostgreSQL cluster for the test, separate from the one
// TEST_DATABASE_URL names, and answers its URL (user postgres, trust authentication, 127.0.0.1 on a
// free port). Features that reach a customer's own database (registered SQL databases) must be tested
// against a server that is not loopwork's, so a bug cannot pass by reading loopwork's own tables.
// The cluster is built by internal/tools/pg.sh (test mode: no fsync) and stopped and removed at cleanup.
func OtherPostgres(t testing.TB) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(here), "..", "tools", "pg.sh")
	dir, err := os.MkdirTemp("", "loopwork-other-pg.")
	if err != nil {
		t.Fatal(err)
	}
	// As root the cluster runs as another user, who must be able to enter the directory.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = exec.Command(script, "stop", dir).Run()
		_ = os.RemoveAll(dir)
	})
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(script, "start", dir, "test")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("start a second PostgreSQL: %v\n%s", err, stderr.String())
	}
	return strings.TrimSpace(stdout.String())
}
