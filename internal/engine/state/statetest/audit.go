// Package statetest records, in a test's database, every status change of the engine's rows, so that a
// test can fail on any move its state machine does not allow (state.Check), whichever code made it.
package statetest

import (
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/engine/state"
)

// install adds a table of moves and a trigger on each engine table that appends to it. The trigger
// is a test's only: the product's schema has none of it.
const install = `
CREATE TABLE IF NOT EXISTS engine_moves (seq bigserial PRIMARY KEY, table_name text NOT NULL,
	from_status text NOT NULL, to_status text NOT NULL);
CREATE OR REPLACE FUNCTION engine_moves_record() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	old_s text := to_jsonb(OLD)->>TG_ARGV[0];
	new_s text := to_jsonb(NEW)->>TG_ARGV[0];
BEGIN
	IF old_s IS DISTINCT FROM new_s THEN
		INSERT INTO engine_moves (table_name, from_status, to_status) VALUES (TG_TABLE_NAME, old_s, new_s);
	END IF;
	RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS engine_moves ON flow_executions;
DROP TRIGGER IF EXISTS engine_moves ON execution_tasks;
DROP TRIGGER IF EXISTS engine_moves ON task_executions;
CREATE TRIGGER engine_moves AFTER UPDATE ON flow_executions FOR EACH ROW EXECUTE FUNCTION engine_moves_record('status');
CREATE TRIGGER engine_moves AFTER UPDATE ON execution_tasks FOR EACH ROW EXECUTE FUNCTION engine_moves_record('state');
CREATE TRIGGER engine_moves AFTER UPDATE ON task_executions FOR EACH ROW EXECUTE FUNCTION engine_moves_record('status');`

// Record starts recording the moves of the engine's rows in db, and checks them all when the test ends:
// the test fails on each distinct move that the state machines do not allow.
func Record(t testing.TB, db *sqlx.DB) {
	t.Helper()
	if _, err := db.Exec(install); err != nil {
		t.Fatalf("recording the engine's moves: %v", err)
	}
	t.Cleanup(func() {
		moves, err := read(db)
		if err != nil {
			// The test took the database away itself (a test of the server losing it): nothing to check.
			t.Logf("the engine's moves could not be read at the end: %v", err)
			return
		}
		for _, m := range moves {
			if err := state.Check(m); err != nil {
				t.Error(err)
			}
		}
	})
}

// read are the distinct moves recorded, in the order first seen.
func read(db *sqlx.DB) ([]state.Move, error) {
	var moves []state.Move
	err := db.Select(&moves, `SELECT table_name AS "table", from_status AS "from", to_status AS "to"
		FROM engine_moves GROUP BY 1, 2, 3 ORDER BY min(seq)`)
	return moves, err
}

// Moves are the distinct moves recorded so far, in the order first seen.
func Moves(t testing.TB, db *sqlx.DB) []state.Move {
	t.Helper()
	moves, err := read(db)
	if err != nil {
		t.Fatalf("reading the engine's moves: %v", err)
	}
	return moves
}

// Illegal are the errors of the recorded moves that the state machines do not allow.
func Illegal(t testing.TB, db *sqlx.DB) []error {
	t.Helper()
	var errs []error
	for _, m := range Moves(t, db) {
		if err := state.Check(m); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
