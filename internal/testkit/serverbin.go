package testkit

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
)

// ServerBinVar names a loopwork binary the tests start instead of building their own. `make test`
// builds one for the whole run and sets it, so that the packages that start processes do not each
// link a binary of over 100 MB.
const ServerBinVar = "LOOPWORK_TEST_SERVER"

// buildPrefix starts the names of the directories BuildServer builds into; the process id follows,
// so that a later test binary can tell the directories of ended ones (sweepBuilds).
const buildPrefix = "loopwork-test-server-"

var built struct {
	once sync.Once
	bin  string
	err  error
}

// BuildServer returns the path of a loopwork binary for the test's processes.
//
// When LOOPWORK_TEST_SERVER is set (not empty), it must be the absolute path of an executable file (go test runs
// each package in its own directory), and that file is used as it is: whoever sets the variable builds
// it from the tree under test first, or the tests run an older server than the code they check. A
// variable that names no executable fails the test rather than quietly building, which would only
// hide a broken setup as a slower run.
//
// Otherwise the binary is built once per test binary, into a directory of its own under the
// temporary directory. The directory outlives the test that asked first, since later tests start
// processes from it, and a test binary has no hook after its last test; so each build first removes
// the directories of test binaries that no longer run.
func BuildServer(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv(ServerBinVar); bin != "" {
		if err := usableBin(bin); err != nil {
			t.Fatalf("%s=%q: %v", ServerBinVar, bin, err)
		}
		return bin
	}
	built.once.Do(func() { built.bin, built.err = buildServer() })
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// usableBin checks that bin is an absolute path to an executable regular file.
func usableBin(bin string) error {
	if !filepath.IsAbs(bin) {
		return errors.New("must be an absolute path: each package's tests run in its own directory")
	}
	fi, err := os.Stat(bin)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return errors.New("not an executable file")
	}
	return nil
}

func buildServer() (string, error) {
	_ = sweepBuilds(os.TempDir()) // what is left is only disk space, never a reason to fail a test
	dir, err := os.MkdirTemp("", buildPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "loopwork")
	out, err := exec.Command("go", "build", "-o", bin, ServerPackage).CombinedOutput()
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("go build %s: %v\n%s", ServerPackage, err, out)
	}
	return bin, nil
}

var buildDir = regexp.MustCompile("^" + regexp.QuoteMeta(buildPrefix) + `([0-9]+)-`)

// sweepBuilds removes from dir the build directories of test binaries that no longer run. One that
// carries this process's id was left by an earlier process that had it, since this one builds once
// and sweeps first. A process of another user counts as running (EPERM).
func sweepBuilds(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		m := buildDir.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		if pid != os.Getpid() {
			if err := syscall.Kill(pid, 0); err == nil || errors.Is(err, syscall.EPERM) {
				continue
			}
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
