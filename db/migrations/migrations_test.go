package migrations_test

import (
	"context"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/db/migrations"
	"github.com/loopwork/loopwork/internal/testkit"
)

func tableExists(t *testing.T, db *sqlx.DB, name string) bool {
	t.Helper()
	var ok bool
	if err := db.Get(&ok, `SELECT to_regclass($1) IS NOT NULL`, name); err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestUpDownUp checks that the whole schema, River's included, installs on an empty database, rolls
// back to nothing, and installs again: `migrate down` must work, not only `up`.
func TestUpDownUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.EmptyDB(t)
	p, err := migrations.NewProvider(db.DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Up(ctx)
	if err != nil {
		t.Fatalf("up: %v", err)
	}
	if len(res) < 2 {
		t.Fatalf("up applied %d migrations, want at least 2 (River and base)", len(res))
	}
	if !tableExists(t, db, "river_job") {
		t.Fatal("river_job missing after up: River's schema was not installed")
	}
	if pending, err := p.HasPending(ctx); err != nil || pending {
		t.Fatalf("pending after up = %v, %v", pending, err)
	}
	if _, err := p.DownTo(ctx, 0); err != nil {
		t.Fatalf("down to 0: %v", err)
	}
	if tableExists(t, db, "river_job") {
		t.Fatal("river_job still there after rolling everything back")
	}
	if v, err := p.GetDBVersion(ctx); err != nil || v != 0 {
		t.Fatalf("version after reset = %d, %v; want 0", v, err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("second up: %v", err)
	}
	if !tableExists(t, db, "river_job") {
		t.Fatal("river_job missing after second up")
	}
}
