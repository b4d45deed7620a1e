package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// readmeLimit is the README's budget: an introduction, not the reference (docs/ is the reference).
const readmeLimit = 10 * 1024

// section returns the text of a page under the "## name" heading, up to the next one.
func section(t *testing.T, page, name string) string {
	t.Helper()
	_, rest, ok := strings.Cut(page, "\n## "+name+"\n")
	if !ok {
		t.Fatalf("no section %q", name)
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

var shBlock = regexp.MustCompile("(?s)\n```sh\n(.*?)\n```")

// TestReadmeTour runs the README's tour as a newcomer would, block after block in one shell, against a
// real server: it signs in as the first administrator `make run` creates (the file it keeps), creates and
// runs a flow, reviews it, labels the jobs of an app and downloads their export.
func TestReadmeTour(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("LOOPWORK_REQUIRE_TOUR") != "" {
				t.Fatalf("the README's tour needs %s", tool)
			}
			t.Skipf("the README's tour needs %s", tool)
		}
	}
	readme := readFile(t, "../../README.md")
	blocks := shBlock.FindAllStringSubmatch(section(t, readme, "A five-minute tour"), -1)
	if len(blocks) < 6 {
		t.Fatalf("the tour has %d shell blocks; sign in, flow, run, review, app and export make six", len(blocks))
	}
	script := "set -euo pipefail\n"
	for i, b := range blocks {
		script += "echo '== block " + strconv.Itoa(i+1) + "'\n" + b[1] + "\n"
	}

	env := testkit.NewEnv(t)
	_, email := env.NewUser(t, env.Org(t), auth.RoleBackoffice)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".data"), 0o700); err != nil {
		t.Fatal(err)
	}
	// make run's passwords need no quoting; the test's has spaces, so it is quoted as the shell reads it.
	creds := "email=" + email + "\npassword='" + strings.ReplaceAll(testkit.Password, "'", `'\''`) + "'\n"
	if err := os.WriteFile(filepath.Join(dir, ".data", "first-admin.txt"), []byte(creds), 0o600); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LOOPWORK_URL="+env.URL)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the tour failed: %v\n%s", err, out)
	}
	// What a reader is told to expect: the reviewed execution's output, then the labeled jobs in the file.
	for _, want := range []string{`"greeting":"Hello, Ada"`, `"approved":true`, "Dear Grace", "Dear Barbara"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the tour's output lacks %s:\n%s", want, out)
		}
	}
}

// TestReadme keeps the README an introduction: within its budget, the commands it promises are the
// Makefile's, and it names no document its readers never saw.
func TestReadme(t *testing.T) {
	t.Parallel()
	readme := readFile(t, "../../README.md")
	if len(readme) > readmeLimit {
		t.Errorf("README.md is %d bytes, over its %d: move the detail to docs/", len(readme), readmeLimit)
	}
	commands := section(t, readme, "Two commands")
	for _, c := range []string{"make run", "make test"} {
		if !strings.Contains(commands, c) {
			t.Errorf("Two commands does not show %s", c)
		}
	}
	if m := regexp.MustCompile(`\d+(\.\d+)? s\b|\d+ min`).FindString(commands); m == "" {
		t.Error("Two commands does not say how long make run takes to answer readiness")
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
