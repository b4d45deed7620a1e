package server_test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/testkit"
)

// prismVersion is the Stoplight Prism release the contract proxy test runs. 5.14.2 is the newest
// release that still runs on the Node.js 18 and 20 Debian ships (5.15 and later ask for Node 24).
const prismVersion = "5.14.2"

// prismProxy is one Prism process validating traffic to an upstream against one document.
type prismProxy struct {
	URL string
	log *testkit.LockedBuffer
}

// startPrism runs `prism proxy` for the document in front of upstream and waits until it answers.
// Prism runs without --errors: it then forwards every exchange unchanged and reports what it found
// wrong in the sl-violations header, which lets the scenario see the server's own answer and every
// violation of it (with --errors, the first violation replaces the answer by a 500 of Prism's own).
func startPrism(t *testing.T, name string, document []byte, upstream string) *prismProxy {
	t.Helper()
	spec := filepath.Join(t.TempDir(), name+".json")
	if err := os.WriteFile(spec, document, 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	cmd := exec.Command("npx", "--yes", "@stoplight/prism-cli@"+prismVersion, "proxy", spec, upstream,
		"--host", "127.0.0.1", "--port", fmt.Sprint(port))
	log := &testkit.LockedBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	// npx starts prism as a child of its own: the whole process group is stopped at the end.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start prism: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	p := &prismProxy{URL: fmt.Sprintf("http://127.0.0.1:%d", port), log: log}
	// The first run downloads Prism from the npm registry, which may take a minute or two.
	for deadline := time.Now().Add(4 * time.Minute); ; time.Sleep(250 * time.Millisecond) {
		select {
		case <-done:
			t.Fatalf("prism (%s) exited before it listened:\n%s", name, log.String())
		default:
		}
		if res, err := http.Get(p.URL + "/health/liveness"); err == nil {
			res.Body.Close()
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("prism (%s) did not listen within 4 minutes:\n%s", name, log.String())
		}
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
