package main

import (
	"fmt"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// folders holds what no Go package says about itself: the folders without Go code.
var folders = map[string]string{
	"openapi/v1": "The `/v1` contract, Swagger 2.0, written by hand.",
	"openapi/api": "The `/api` contract, OpenAPI 3.0.3, one file per area (`openapi.yaml` is the root), written by hand " +
		"except `tasks.yaml`, the task types' schemas, which `make generate` writes from the task registry.",
	"gen/ts":         "Generated from the contracts: the TypeScript types and clients of both interfaces.",
	"docs":           "These pages.",
	".ci":            "What CI runs (`.ci/run`).",
	"internal/tools": "The scripts the Makefile runs: PostgreSQL for `make run` and `make test`, Debian packages, the load script.",
}

// skip are folders that hold no code of the repository's own.
var skip = map[string]bool{".git": true, "node_modules": true, ".data": true, "bin": true, "testdata": true, ".notes": true}

// reference drops pointers into design documents that readers of docs/ do not have.
var reference = regexp.MustCompile(`\s*\((?:Document \d|DESIGN\.md)[^)]*\)`)

// layout lists every Go package of the repository with the first sentence of its documentation, and the
// folders above.
func layout(root string) (string, error) {
	rows := map[string]string{}
	for k, v := range folders {
		rows[k] = v
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if skip[d.Name()] {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		if synopsis, ok := packageSynopsis(path); ok {
			rows[filepath.ToSlash(rel)] = synopsis
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("| Folder | What it holds |\n|---|---|\n")
	for _, k := range keys {
		if rows[k] == "" {
			return "", fmt.Errorf("%s: the package has no documentation comment", k)
		}
		fmt.Fprintf(&b, "| `%s/` | %s |\n", k, cell(rows[k]))
	}
	return b.String(), nil
}

// packageSynopsis is the first sentence of the package comment of the Go files in dir (a test-only
// package's comment when it has no other); ok is false without Go files.
func packageSynopsis(dir string) (string, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	var text, testText string
	found := false
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		found = true
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil || f.Doc == nil {
			continue
		}
		if strings.HasSuffix(e.Name(), "_test.go") {
			testText = f.Doc.Text()
		} else if text == "" {
			text = f.Doc.Text()
		}
	}
	if !found {
		return "", false
	}
	if text == "" {
		text = testText
	}
	return reference.ReplaceAllString((&doc.Package{}).Synopsis(text), ""), true
}
