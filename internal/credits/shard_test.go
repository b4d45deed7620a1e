package credits_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/testkit"
)

// TestShardsAreConnectionsOwn: 65 connections open at once each get a shard of their own (by the old
// rule, pg_backend_pid() % 64, two of them had to share one), and a connection whose first transaction
// rolled back keeps the shard it took, holding one lock for it.
func TestShardsAreConnectionsOwn(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	db.SetMaxOpenConns(70)
	seen := map[int]bool{}
	for range 65 {
		c := conn(t, db)
		var s int
		if err := c.GetContext(ctx, &s, `SELECT counter_shard()`); err != nil {
			t.Fatal(err)
		}
		if seen[s] {
			t.Fatalf("shard %d given to two open connections", s)
		}
		seen[s] = true
	}

	c := conn(t, db)
	tx, err := c.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var first, again, locks int
	if err := tx.GetContext(ctx, &first, `SELECT counter_shard()`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := c.GetContext(ctx, &again, `SELECT counter_shard()`); err != nil {
		t.Fatal(err)
	}
	if err := c.GetContext(ctx, &locks, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
		AND classid = 1819242339 AND objsubid = 2`); err != nil {
		t.Fatal(err)
	}
	if first != again || locks != 1 {
		t.Fatalf("shard %d, then %d after a rollback, holding %d locks; want the same shard and one lock", first, again, locks)
	}
}

// TestWritersOfOneOrganizationDoNotWait: of connections open at once, two whose process ids are equal
// modulo 64 (who shared a shard before migration 00101) consume credit of one organization in open
// transactions; the second does not wait for the first.
func TestWritersOfOneOrganizationDoNotWait(t *testing.T) {
	ctx := context.Background()
	db := testkit.DB(t)
	db.SetMaxOpenConns(80)
	var org uuid.UUID
	if err := db.Get(&org, `INSERT INTO organizations (name) VALUES ('s') RETURNING id`); err != nil {
		t.Fatal(err)
	}
	byMod := map[int]*sqlx.Conn{}
	var a, b *sqlx.Conn
	for i := 0; i < 65 && b == nil; i++ {
		c := conn(t, db)
		var pid int
		if err := c.GetContext(ctx, &pid, `SELECT pg_backend_pid()`); err != nil {
			t.Fatal(err)
		}
		if o, ok := byMod[pid%64]; ok {
			a, b = o, c
		}
		byMod[pid%64] = c
	}
	spend := `INSERT INTO credit_balances (organization_id, shard, consumed) VALUES ($1, counter_shard(), 1)
		ON CONFLICT (organization_id, shard) DO UPDATE SET consumed = credit_balances.consumed + 1`
	txA, err := a.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer txA.Rollback()
	if _, err := txA.ExecContext(ctx, spend, org); err != nil {
		t.Fatal(err)
	}
	txB, err := b.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer txB.Rollback()
	if _, err := txB.ExecContext(ctx, `SET LOCAL lock_timeout = '2s'`); err != nil {
		t.Fatal(err)
	}
	if _, err := txB.ExecContext(ctx, spend, org); err != nil {
		t.Fatalf("the second writer: %v", err)
	}
}

// conn is a connection of db's held until the test ends.
func conn(t *testing.T, db *sqlx.DB) *sqlx.Conn {
	c, err := db.Connx(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil && err != sql.ErrConnDone {
			t.Error(err)
		}
	})
	return c
}
