// Command taskspec writes openapi/api/tasks.yaml, the task types' part of the /api contract, from the task
// registry (internal/engine/tasks). The file holds FlowDefinitionTask, a oneOf of one schema per type
// picked by `type`; each type's task schema (TransformTask, …) with the registry's example; and its
// parameters schema (TransformParameters, …), the registry's JSON schema in OpenAPI 3.0.3 terms. `make
// generate` runs it before bundling the contract, so that the served document, the Go and TypeScript code
// generated from it and the validator read one description of each type; a test fails when the committed
// file is not what the registry gives.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/loopwork/loopwork/internal/engine/tasks"
)

func main() {
	out := flag.String("out", "openapi/api/tasks.yaml", "the file to write")
	flag.Parse()
	data, err := Render(tasks.Builtin())
	if err != nil {
		fmt.Fprintln(os.Stderr, "taskspec:", err)
		os.Exit(1)
	}
	if old, err := os.ReadFile(*out); err == nil && bytes.Equal(old, data) {
		return
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "taskspec:", err)
		os.Exit(1)
	}
	fmt.Println("taskspec: wrote", *out)
}
