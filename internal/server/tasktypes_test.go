package server

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// TestBuiltinExecutorsCoverRegistry fails when a built-in task type has no executor or an executor runs
// no built-in type, naming which: adding a type to the registry means adding what runs it. Only the
// set's names are read, so every dependency may be empty.
func TestBuiltinExecutorsCoverRegistry(t *testing.T) {
	t.Parallel()
	set := builtinExecutors(executors.JQ{}, &http.Client{}, executors.MailDeps{}, executors.Unavailable("human_review", "test"),
		nil, executors.SQLLimits{}, nil, nil, nil)
	if err := set.Check(tasks.Builtin(), run.External); err != nil {
		t.Fatal(err)
	}
}

// TestTaskTypesInContract fails when the /api contract's FlowDefinitionTaskType, which clients and the
// generated SDKs take the task types from, differs from the registry: its enum must hold exactly the
// registered names, and its description must say what each one does.
func TestTaskTypesInContract(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(platformapi.OpenAPIJSON)
	if err != nil {
		t.Fatal(err)
	}
	ref := doc.Components.Schemas["FlowDefinitionTaskType"]
	if ref == nil || ref.Value == nil {
		t.Fatal("the /api contract has no FlowDefinitionTaskType schema")
	}
	var names []string
	for _, v := range ref.Value.Enum {
		names = append(names, fmt.Sprint(v))
	}
	reg := tasks.Builtin()
	if err := reg.Mismatch("FlowDefinitionTaskType's enum (openapi/api/flows.yaml)", names); err != nil {
		t.Error(err)
	}
	for _, name := range reg.Names() {
		if !strings.Contains(ref.Value.Description, "`"+name+"`") {
			t.Errorf("FlowDefinitionTaskType's description (openapi/api/flows.yaml) does not describe `%s`", name)
		}
	}
}
