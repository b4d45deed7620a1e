package tasks

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestExamplesPassTheirSchemas fails when a built-in type has no example, or its example's parameters are not
// what the type's schema accepts: the contract and docs/ show them to be copied, and a schema that changed
// must change its example with it. The parameters go through JSON first, as a definition sent to the server
// does.
func TestExamplesPassTheirSchemas(t *testing.T) {
	r := Builtin()
	for _, name := range r.Names() {
		typ, _ := r.Lookup(name)
		ex := typ.Example
		if ex == nil {
			t.Errorf("%s has no example (internal/engine/tasks/examples.go)", name)
			continue
		}
		if ex.Name == "" || ex.Type != name || ex.Description == "" {
			t.Errorf("%s: the example needs a name and a description, and its type: %+v", name, ex)
		}
		raw, err := json.Marshal(ex.Parameters)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var params any
		if err := dec.Decode(&params); err != nil {
			t.Fatal(err)
		}
		for _, p := range r.CheckParameters(name, params) {
			t.Errorf("%s: the example's parameters at %v: %s (%s)", name, p.Loc, p.Msg, p.Type)
		}
	}
	for name := range builtinExamples {
		if _, ok := r.Lookup(name); !ok {
			t.Errorf("builtinExamples holds an example of %q, which is no built-in type", name)
		}
	}
}
