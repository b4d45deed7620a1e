package deploy_test

import (
	"bytes"
	"debug/elf"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/deploy"
	"github.com/loopwork/loopwork/internal/testkit"
)

// imageTree runs the build stage's RUN lines that fill /rootfs, with /rootfs moved to a directory of
// the test's, from the repository's root (the stage's COPY . . source), and returns that directory:
// the files the default image holds, made by the Dockerfile's own commands. Cache mounts are left out
// (the host's caches serve). Not as root, only the go build runs: the others chown.
func imageTree(t *testing.T, d *deploy.Dockerfile, version string) string {
	t.Helper()
	build, err := d.Stage("build")
	if err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(t.TempDir(), "rootfs")
	ran := false
	for _, in := range build.All("RUN") {
		if !strings.Contains(in.Raw, "/rootfs") {
			continue
		}
		isBuild := strings.Contains(in.Raw, "go build")
		if os.Geteuid() != 0 && !isBuild {
			continue
		}
		script := strings.ReplaceAll(in.Raw, "/rootfs", tree)
		if isBuild && os.Geteuid() != 0 {
			// The tree RUN, skipped here, makes the directory the go build writes into.
			if err := os.MkdirAll(filepath.Join(tree, "usr/local/bin"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = repoRoot(t)
		cmd.Env = append(os.Environ(), "VERSION="+version)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("Dockerfile line %d: %v\n%s\n%s", in.Line, err, script, out)
		}
		ran = ran || isBuild
	}
	if !ran {
		t.Fatal("the build stage has no go build writing under /rootfs")
	}
	return tree
}

// TestImage builds the default image's files with the Dockerfile's commands and checks the binary
// is static and that, chrooted into those files with only compose's settings, it migrates an empty
// database, becomes ready, and answers its own HEALTHCHECK.
//
// The build is a compile of every package in a configuration of its own (CGO off, -trimpath), which
// nothing else the tests build shares: on two cores it took eight minutes beside the rest of the suite,
// the whole of make test's length. So it runs when LOOPWORK_IMAGE=1, which make deploy-check sets and CI
// runs as a step of its own.
func TestImage(t *testing.T) {
	if os.Getenv("LOOPWORK_IMAGE") != "1" {
		t.Skip("set LOOPWORK_IMAGE=1 (make deploy-check) to build the image's files and start the server on them")
	}
	d := dockerfile(t)
	build, _ := d.Stage("build")
	version := build.ArgDefault("VERSION") + "-image-test"
	tree := imageTree(t, d, version)
	runtime := &d.Stages[len(d.Stages)-1]
	ep, _ := runtime.Last("ENTRYPOINT")
	bin := filepath.Join(tree, ep.Exec[0])

	t.Run("static", func(t *testing.T) {
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Error("the binary names a program interpreter (dynamically linked): it cannot run on scratch")
			}
		}
		if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
			t.Errorf("the binary needs shared libraries %v", libs)
		}
	})

	out, err := exec.Command(bin, "version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "loopwork "+version {
		t.Fatalf("version: %q %v, want the VERSION build argument %s (the Makefile's ldflags)", out, err, version)
	}

	if os.Geteuid() != 0 {
		t.Skip("not root: cannot chroot into the image's files, so the start on them alone is not checked")
	}
	if err := os.Chmod(tree, 0o755); err != nil { // t.TempDir is 0700; the image's / is not
		t.Fatal(err)
	}
	env := imageEnv(t, runtime)
	addr := testkit.FreePort(t)
	env["DATABASE_URL"] = testkit.DSN(t, testkit.EmptyDB(t)) // compose's postgres, here the test's server
	env["LOOPWORK_ADDR"] = addr                              // compose's 0.0.0.0:8080, on a port of the test's
	env["LOOPWORK_SHUTDOWN_TIMEOUT"] = "1s"

	srv := inImage(t, tree, runtime, env, ep.Exec[0], "serve")
	var logs bytes.Buffer
	srv.Stdout, srv.Stderr = &logs, &logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		res, err := http.Get("http://" + addr + "/health/readiness")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server in the image's files did not become ready: %v\n%s", err, logs.String())
		}
	}
	hc, _ := runtime.Last("HEALTHCHECK")
	if out, err := inImage(t, tree, runtime, env, hc.Exec[0], hc.Exec[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("HEALTHCHECK %s: %v\n%s", hc.Raw, err, out)
	}
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := srv.Wait(); err != nil {
		t.Fatalf("the server did not stop cleanly on SIGTERM: %v\n%s", err, logs.String())
	}
}

// imageEnv is the environment a container of the stage gets under compose: the image's ENV, then the
// loopwork service's environment with the operator's values (and nothing of the test's own).
func imageEnv(t *testing.T, st *deploy.Stage) map[string]string {
	t.Helper()
	env, err := st.Env()
	if err != nil {
		t.Fatal(err)
	}
	fromCompose, err := compose(t).Services["loopwork"].ResolvedEnvironment(deploy.Environ(composeValues))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range fromCompose {
		env[k] = v
	}
	return env
}

// inImage prepares name args chrooted into tree, as the stage's USER, in its WORKDIR, with exactly env.
func inImage(t *testing.T, tree string, st *deploy.Stage, env map[string]string, name string, args ...string) *exec.Cmd {
	t.Helper()
	user, _ := st.Last("USER")
	uid, gid, _ := strings.Cut(user.Raw, ":")
	u, err1 := strconv.ParseUint(uid, 10, 32)
	g, err2 := strconv.ParseUint(gid, 10, 32)
	if err1 != nil || err2 != nil {
		t.Fatalf("USER %s: want numeric uid:gid", user.Raw)
	}
	wd, _ := st.Last("WORKDIR")
	// Not exec.Command: it would look name up on the host; the child runs it after entering the tree.
	cmd := &exec.Cmd{Path: name, Args: append([]string{name}, args...), Dir: wd.Raw}
	cmd.Env = []string{}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: tree, Credential: &syscall.Credential{Uid: uint32(u), Gid: uint32(g)}}
	return cmd
}
