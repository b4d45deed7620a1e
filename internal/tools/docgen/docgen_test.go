package main

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/engine/tasks"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestDocsAreCurrent fails when a page of docs/ is not what `make docs` writes from the code: a setting,
// a task type or a package changed and the page did not.
func TestDocsAreCurrent(t *testing.T) {
	pages, err := Render("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if p.Changed() {
			t.Errorf("%s is not what the code says: run `make docs` and commit it\n%s", strings.TrimPrefix(p.Path, "../../../"), testkit.FirstDifference(p.Old, p.New))
		}
	}
}

// TestConfigurationRows: grouped fields share one row and Go names become variables.
func TestConfigurationRows(t *testing.T) {
	table, err := configurationTable("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| `DATABASE_URL` |", "`LOOPWORK_ENCRYPTION_KEY` (secret)",
		"`LOOPWORK_READ_HEADER_TIMEOUT`<br>`LOOPWORK_READ_TIMEOUT`"} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q", want)
		}
	}
	if strings.Contains(table, "TaskLease") {
		t.Error("a Go field name is left in the table")
	}
}

// TestTaskExamplesAreJSON: each example block of the task types reads back as the registry's example, so
// the indentation written by hand (pretty) neither breaks nor changes it.
func TestTaskExamplesAreJSON(t *testing.T) {
	text, err := taskTypes("")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```json\n(.*?)\n```").FindAllStringSubmatch(text, -1)
	reg := tasks.Builtin()
	if len(blocks) != len(reg.Names()) {
		t.Fatalf("%d example blocks for %d types", len(blocks), len(reg.Names()))
	}
	for i, name := range reg.Names() {
		typ, _ := reg.Lookup(name)
		want, err := json.Marshal(typ.Example)
		if err != nil {
			t.Fatal(err)
		}
		var got, back any
		if err := json.Unmarshal([]byte(blocks[i][1]), &got); err != nil {
			t.Errorf("%s: the example block is not JSON: %v\n%s", name, err, blocks[i][1])
			continue
		}
		if err := json.Unmarshal(want, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, back) {
			t.Errorf("%s: the example block reads as %v, want %v", name, got, back)
		}
	}
}
