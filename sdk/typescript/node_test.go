package typescript_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// repo is the repository's root, seen from this package's folder.
const repo = "../.."

// compile lays out this folder and gen/ts in a temporary directory as they sit in the repository, with
// the pinned packages as its node_modules, and compiles the example there (type-checking it and gen/ts
// under tsconfig.json's strict settings; noEmitOnError makes any error fail). It answers the folder to run
// the example in. Without node and npm it skips the test, unless LOOPWORK_REQUIRE_NODE says they must be there.
func compile(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("LOOPWORK_REQUIRE_NODE") != "" {
				t.Fatalf("%s is required (LOOPWORK_REQUIRE_NODE) but not installed", tool)
			}
			t.Skipf("%s is not installed", tool)
		}
	}
	modules := install(t)
	work := t.TempDir()
	dir := filepath.Join(work, "sdk", "typescript")
	gen := filepath.Join(work, "gen", "ts")
	for _, d := range []string{dir, gen} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"package.json", "tsconfig.json", "example.ts"} {
		copyFile(t, f, filepath.Join(dir, f))
	}
	ts, err := filepath.Glob(filepath.Join(repo, "gen", "ts", "*.ts"))
	if err != nil || len(ts) == 0 {
		t.Fatalf("no gen/ts (%v): run make generate", err)
	}
	for _, f := range ts {
		copyFile(t, f, filepath.Join(gen, filepath.Base(f)))
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	tsc := exec.Command("node", filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", ".")
	tsc.Dir = dir
	if out, err := tsc.CombinedOutput(); err != nil {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
	return dir
}

// install runs npm ci from package-lock.json once per lockfile into the user's cache, and answers the
// node_modules folder it made. A marker written last tells a finished install from an interrupted one.
func install(t *testing.T) string {
	t.Helper()
	lock, err := os.ReadFile("package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(lock)
	dir := filepath.Join(cache, "loopwork-test", "typescript-"+hex.EncodeToString(sum[:8]))
	marker := filepath.Join(dir, "installed")
	if _, err := os.Stat(marker); err == nil {
		return filepath.Join(dir, "node_modules")
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, "package.json", filepath.Join(dir, "package.json"))
	copyFile(t, "package-lock.json", filepath.Join(dir, "package-lock.json"))
	npm := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts")
	npm.Dir = dir
	if out, err := npm.CombinedOutput(); err != nil {
		t.Fatalf("npm ci: %v\n%s", err, out)
	}
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "node_modules")
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
