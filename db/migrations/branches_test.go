package migrations_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/loopwork/loopwork/db/migrations"
	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/engine/tasks"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestConditionEdgesBecomeBranches: migration 100 rewrites the edges out of condition tasks that read the
// output {"result": bool} condition tasks used to have, so stored flows behave as before now that such a
// task passes its input on: plain .result tests become branches, and any other condition C keeps seeing
// the same object in each branch. Edges out of other tasks and edges without a condition stay as they were.
func TestConditionEdgesBecomeBranches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.EmptyDB(t)
	p, err := migrations.NewProvider(db.DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 99); err != nil {
		t.Fatal(err)
	}
	old := `{"version": 1, "tasks": [
		{"name": "a", "type": "transform", "parameters": {"expression": "."}},
		{"name": "c", "type": "condition", "parameters": {"expression": ".n > 1"}},
		{"name": "yes", "type": "transform", "parameters": {"expression": "."}},
		{"name": "no", "type": "transform", "parameters": {"expression": "."}},
		{"name": "odd", "type": "transform", "parameters": {"expression": "."}}],
		"edges": [{"source": "a", "target": "c", "condition": ".result"},
			{"source": "c", "target": "yes"}, {"source": "c", "target": "yes", "condition": " .result == true"},
			{"source": "c", "target": "no", "condition": ".result | not"},
			{"source": "c", "target": "odd", "condition": ".result != null"}]}`
	var flow string
	if err := db.QueryRow(`WITH o AS (INSERT INTO organizations (name) VALUES ('m') RETURNING id),
		f AS (INSERT INTO flows (organization_id) SELECT id FROM o RETURNING id, organization_id)
		INSERT INTO flow_versions (flow_id, version, organization_id, display_name, definition, valid)
		SELECT id, 1, organization_id, 'm', $1, true FROM f RETURNING flow_id`, old).Scan(&flow); err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, 100); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	if err := db.Get(&raw, `SELECT definition FROM flow_versions WHERE flow_id = $1`, flow); err != nil {
		t.Fatal(err)
	}
	var def map[string]any
	if err := json.Unmarshal(raw, &def); err != nil {
		t.Fatal(err)
	}
	want := []any{
		map[string]any{"source": "a", "target": "c", "condition": ".result"},
		map[string]any{"source": "c", "target": "yes"},
		map[string]any{"source": "c", "target": "yes", "branch": true},
		map[string]any{"source": "c", "target": "no", "branch": false},
		map[string]any{"source": "c", "target": "odd", "branch": true, "condition": `{"result": true} | (.result != null)`},
		map[string]any{"source": "c", "target": "odd", "branch": false, "condition": `{"result": false} | (.result != null)`},
	}
	if got := def["edges"]; !reflect.DeepEqual(got, want) {
		t.Fatalf("edges after the migration:\n%v\nwant\n%v", got, want)
	}
	if r := dsl.Validate(def, tasks.Builtin()); len(r.Errors) != 0 {
		t.Fatalf("the migrated definition is not valid: %+v", r.Errors)
	}
}
