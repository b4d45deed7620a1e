package testkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Process is a `loopwork serve` of the test's own, on its own port.
type Process struct {
	URL  string
	cmd  *exec.Cmd
	logs LockedBuffer
}

// ServerPackage is the package of the loopwork binary: what BuildServer builds for the tests, and what
// the Dockerfile must build for the image (internal/deploy checks it does).
const ServerPackage = "github.com/loopwork/loopwork/cmd/loopwork"

// FreePort is a loopback address no one listens on.
func FreePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// Serve starts the binary on addr against the database and waits until it is ready. Its task lease is
// two seconds, so a test sees lost work run again quickly; env adds settings (NAME=value).
func Serve(t testing.TB, bin, dsn, addr string, env ...string) *Process {
	t.Helper()
	p := &Process{URL: "http://" + addr}
	p.cmd = exec.Command(bin, "serve")
	p.cmd.Env = append(append(os.Environ(), serveSettings(dsn, addr)...), env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.logs, &p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get(p.URL + "/health/readiness")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not become ready: %v\n%s", err, p.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// serveSettings are the settings Serve starts every process with; later ones of the same name win (see
// exec.Cmd.Env), so a test's own settings override them. The secrets are the in-process server's, so
// that callers the test seeds in the database are accepted by either.
func serveSettings(dsn, addr string) []string {
	return []string{"DATABASE_URL=" + dsn, "LOOPWORK_ADDR=" + addr, "LOOPWORK_MIGRATE=false",
		"LOOPWORK_ENCRYPTION_KEY=" + EncryptionKey, "LOOPWORK_ANON_KEY=" + AnonKey,
		"LOOPWORK_TASK_LEASE=2s", "LOOPWORK_LOG_LEVEL=error", "LOOPWORK_SHUTDOWN_TIMEOUT=1s"}
}

// Kill stops the process the hard way, as a crash or an OOM kill would.
func (p *Process) Kill() {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

// Call sends an authenticated JSON request and decodes the reply into out; a status of 300 or more
// fails the test.
func Call(t testing.TB, base, token, method, path string, body, out any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, base+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		var msg bytes.Buffer
		_, _ = msg.ReadFrom(res.Body)
		t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, msg.String())
	}
	if out != nil {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
}

// Logs is what the process wrote so far.
func (p *Process) Logs() string { return p.logs.String() }

// RSS is the process's resident memory in bytes now, from /proc (0 where /proc has none).
func (p *Process) RSS() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb)
			return kb << 10
		}
	}
	return 0
}
