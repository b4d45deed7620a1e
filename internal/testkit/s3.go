package testkit

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/blob"
)

// versityVersion is the S3 gateway the tests run as a real S3 server.
const versityVersion = "v1.8.0"

// S3 starts a real S3 server (versitygw over a temporary directory) for the test and answers how to
// reach its bucket. The gateway is built once per machine with go install, under a lock, into the
// user's cache directory, so a fresh machine needs only Go and the module proxy.
func S3(t testing.TB) blob.S3Config {
	t.Helper()
	bin := versitygw(t)
	root := t.TempDir()
	bucket := "loopwork"
	if err := os.Mkdir(filepath.Join(root, bucket), 0o755); err != nil {
		t.Fatal(err)
	}
	addr := FreePort(t)
	cfg := blob.S3Config{Endpoint: "http://" + addr, Bucket: bucket, Region: "us-east-1", AccessKey: "test-access",
		SecretKey: "test-secret-" + fmt.Sprint(time.Now().UnixNano()), PathStyle: true}
	cmd := exec.Command(bin, "--access", cfg.AccessKey, "--secret", cfg.SecretKey, "--port", addr, "--quiet", "posix", root)
	var logs LockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res, err := http.Get(cfg.Endpoint + "/")
		if err == nil {
			res.Body.Close()
			return cfg
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw did not start: %v\n%s", err, logs.String())
		}
	}
}

// versitygw finds the gateway on PATH or in the cache, building it there when missing.
func versitygw(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "loopwork", "versitygw-"+versityVersion)
	bin := filepath.Join(dir, "versitygw")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err == nil {
		return bin // another test process built it while this one waited
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "install", "github.com/versity/versitygw/cmd/versitygw@"+versityVersion)
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=-mod=mod")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building versitygw %s: %v\n%s", versityVersion, err, out)
	}
	return bin
}

// LockedBuffer collects a child process's output, written by exec's copying goroutine and read by the
// test.
type LockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *LockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *LockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
