// Command docgen writes the parts of docs/ that the code already says: the settings of internal/config,
// the task types of internal/engine/tasks and the repository's packages. Each part sits in a page between
// two markers,
//
//	<!-- BEGIN GENERATED: configuration (make docs) -->
//	<!-- END GENERATED: configuration -->
//
// and the text around it is written by hand. `make docs` runs it; a test fails when a committed page is not
// what it writes, so the pages cannot drift from the code.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	pages, err := Render(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
	for _, p := range pages {
		if !p.Changed() {
			continue
		}
		if err := os.WriteFile(p.Path, []byte(p.New), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "docgen:", err)
			os.Exit(1)
		}
		fmt.Println("docgen: wrote", p.Path)
	}
}
