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

// TestRiverUpgrade checks that a database installed by River 0.41 (River's schema version 6, goose
// version 90) gets the newer River's schema from migration 91, and that rolling 91 back restores 6.
func TestRiverUpgrade(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.EmptyDB(t)
	p, err := migrations.NewProvider(db.DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("up: %v", err)
	}
	if _, err := p.DownTo(ctx, migrations.RiverUpgrade-1); err != nil {
		t.Fatalf("down to %d: %v", migrations.RiverUpgrade-1, err)
	}
	if !tableExists(t, db, "river_client") || tableExists(t, db, "river_notification") {
		t.Fatal("after rolling back the upgrade the schema is not River's version 6")
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	if tableExists(t, db, "river_client") || !tableExists(t, db, "river_notification") {
		t.Fatal("the upgrade did not bring River's newer schema")
	}
}
