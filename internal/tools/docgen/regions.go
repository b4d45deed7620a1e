package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Page is one file of docs/ as it is and as the generator would write it.
type Page struct {
	Path     string
	Old, New string
}

// Changed reports whether the generator would rewrite the page.
func (p Page) Changed() bool { return p.Old != p.New }

// generators are the parts, by the name their markers use.
var generators = map[string]func(root string) (string, error){
	"configuration": configurationTable,
	"task-types":    taskTypes,
	"layout":        layout,
}

var region = regexp.MustCompile(`(?s)(<!-- BEGIN GENERATED: ([a-z-]+) \(make docs\) -->\n)(.*?)(<!-- END GENERATED: ([a-z-]+) -->)`)

// Render reads every page of root/docs and fills its generated parts. Every part must appear exactly
// once, so that removing a marker does not quietly stop a part from being kept current.
func Render(root string) ([]Page, error) {
	paths, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	seen := map[string]string{}
	var pages []Page
	for _, path := range paths {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var errs []string
		text := region.ReplaceAllStringFunc(string(raw), func(m string) string {
			g := region.FindStringSubmatch(m)
			name := g[2]
			if g[5] != name {
				errs = append(errs, fmt.Sprintf("%s: part %q ends with the marker of %q", path, name, g[5]))
				return m
			}
			gen, ok := generators[name]
			if !ok {
				errs = append(errs, fmt.Sprintf("%s: no generator named %q", path, name))
				return m
			}
			if prev, dup := seen[name]; dup {
				errs = append(errs, fmt.Sprintf("%s: part %q is already in %s", path, name, prev))
				return m
			}
			seen[name] = path
			body, err := gen(root)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %s: %v", path, name, err))
				return m
			}
			return g[1] + strings.TrimRight(body, "\n") + "\n" + g[4]
		})
		if len(errs) > 0 {
			return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
		}
		pages = append(pages, Page{Path: path, Old: string(raw), New: text})
	}
	for name := range generators {
		if _, ok := seen[name]; !ok {
			return nil, fmt.Errorf("no page of docs/ holds the generated part %q", name)
		}
	}
	return pages, nil
}

// cell makes text safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}
