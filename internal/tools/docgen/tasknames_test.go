package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// handWritten returns the README and the pages of docs/ without their generated parts, split into
// paragraphs, a table's rows each one of its own.
func handWritten(t *testing.T, root string) map[string][]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, path := range append(paths, filepath.Join(root, "README.md")) {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := region.ReplaceAllString(string(raw), "")
		rel, _ := filepath.Rel(root, path)
		for _, para := range regexp.MustCompile(`\n\s*\n`).Split(text, -1) {
			if strings.HasPrefix(para, "|") {
				out[rel] = append(out[rel], strings.Split(para, "\n")...)
			} else {
				out[rel] = append(out[rel], para)
			}
		}
	}
	return out
}

// TestDocsNameEveryTaskType fails when a hand-written paragraph that lists the task types (names more than
// half of them) leaves one out, so that a type added to the registry shows up in the prose too. A list of
// examples says so with "…" and is left alone.
func TestDocsNameEveryTaskType(t *testing.T) {
	reg := tasks.Builtin()
	names := reg.Names()
	for page, paras := range handWritten(t, "../../..") {
		for _, p := range paras {
			if strings.Contains(p, "…") {
				continue
			}
			var named []string
			for _, n := range names {
				if strings.Contains(p, "`"+n+"`") {
					named = append(named, n)
				}
			}
			if 2*len(named) <= len(names) {
				continue
			}
			if err := reg.Mismatch("a list of task types in "+page, named); err != nil {
				t.Errorf("%v\n(the paragraph begins %q)", err, firstWords(p))
			}
		}
	}
}

// count is a number of built-in task types written out, which goes stale with the next type.
var count = regexp.MustCompile(`(?i)\b(\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+(built-in\b|task types\b)`)

// TestDocsWriteNoTypeCount fails when the documentation says how many task types there are.
func TestDocsWriteNoTypeCount(t *testing.T) {
	for page, paras := range handWritten(t, "../../..") {
		for _, p := range paras {
			if m := count.FindString(p); m != "" {
				t.Errorf("%s says %q: name the types or point at the Task types list of docs/flows.md instead of counting them", page, m)
			}
		}
	}
}

func firstWords(p string) string {
	f := strings.Fields(p)
	return strings.Join(f[:min(len(f), 8)], " ")
}
