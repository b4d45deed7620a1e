package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// section returns the text of README.md under the "## name" heading, up to the next one.
func section(t *testing.T, readme, name string) string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "\n## "+name+"\n")
	if !ok {
		t.Fatalf("README.md has no section %q", name)
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// TestReadme keeps the README usable by someone who has only it and this repository: the settings
// render as one table, the commands it documents are the ones the binary has, its examples run as
// written, and it names no document its readers never saw.
func TestReadme(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)

	// A blank line ends a Markdown table: the rows after it would render as plain text.
	lines := strings.Split(section(t, readme, "Configuration"), "\n")
	first, last := -1, -1
	for i, l := range lines {
		if strings.HasPrefix(l, "|") {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	for i := first; i <= last; i++ {
		if !strings.HasPrefix(lines[i], "|") {
			t.Errorf("configuration table broken before %q", lines[i+1])
		}
	}
	for _, v := range []string{"DATABASE_URL", "LOOPWORK_ENCRYPTION_KEY", "LOOPWORK_WEB_URL", "LOOPWORK_TRUSTED_PROXIES"} {
		if !strings.Contains(strings.Join(lines[first:last+1], "\n"), "`"+v+"`") {
			t.Errorf("configuration table has no row for %s", v)
		}
	}

	commands := section(t, readme, "Commands")
	for _, m := range regexp.MustCompile(`(?m)^  ([a-z-]+) `).FindAllStringSubmatch(adminUsage, -1) {
		if !strings.Contains(commands, "loopwork admin "+m[1]) {
			t.Errorf("Commands does not document loopwork admin %s", m[1])
		}
	}
	if !strings.Contains(commands, "make admin ARGS=") {
		t.Error("Commands does not say how to run admin commands beside make run")
	}

	if strings.Contains(section(t, readme, "Signing in"), `"password":"…"`) {
		t.Error("the sign-in example sends a placeholder as the password")
	}
	if m := regexp.MustCompile(`Document \d|§\s*\d`).FindString(readme); m != "" {
		t.Errorf("README refers to %q, which its readers do not have", m)
	}
}
