package memo_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/memo"
	"github.com/loopwork/loopwork/internal/testkit"
)

// listening starts a bus on a fresh migrated database.
func listening(t *testing.T) (*memo.Bus, *sqlx.DB) {
	t.Helper()
	db := testkit.DB(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	bus := memo.NewBus()
	if err := bus.Listen(ctx, testkit.DSN(t, db), slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	if !bus.Live() {
		t.Fatal("not live after Listen returned")
	}
	return bus, db
}

// heard runs a statement and counts the notifications it sent on the channel: a marker notified after
// it arrives after them (notifications arrive in commit order), so everything before the marker is the
// statement's. A listener of the test's own reads them, apart from the bus.
func heard(t *testing.T, l *pq.Listener, db *sqlx.DB, query string, args ...any) int {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	marker := fmt.Sprintf("marker %d", time.Now().UnixNano())
	if _, err := db.Exec(`SELECT pg_notify($1, $2)`, memo.Channel, marker); err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		select {
		case got := <-l.Notify:
			if got == nil {
				t.Fatal("the test's listener reconnected: notifications may be lost")
			}
			if got.Extra == marker {
				return n
			}
			n++
		case <-time.After(10 * time.Second):
			t.Fatal("the marker never arrived")
		}
	}
}

// listener listens on the channel with a connection of the test's own.
func listener(t *testing.T, db *sqlx.DB) *pq.Listener {
	t.Helper()
	l := pq.NewListener(testkit.DSN(t, db), 100*time.Millisecond, time.Second, nil)
	t.Cleanup(func() { _ = l.Close() })
	if err := l.Listen(memo.Channel); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestTriggersNotifyAccessChanges: every change to a row principals or grants come from is heard,
// and the busy writes to other columns of those tables are not.
func TestTriggersNotifyAccessChanges(t *testing.T) {
	t.Parallel()
	db := testkit.DB(t)
	l := listener(t, db)
	var org, user, app, session, key string
	var group int64
	must := func(dst any, q string, args ...any) {
		t.Helper()
		if err := db.Get(dst, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	must(&org, `INSERT INTO organizations (name) VALUES ('o') RETURNING id`)
	must(&user, `INSERT INTO users (organization_id, email, first_name, last_name, role) VALUES ($1, 'u@example.com', 'U', 'V', 'app_user') RETURNING id`, org)
	must(&app, `INSERT INTO apps (organization_id, name) VALUES ($1, 'a') RETURNING id`, org)
	must(&session, `INSERT INTO auth_sessions (user_id, organization_id) VALUES ($1, $2) RETURNING id`, user, org)
	must(&key, `INSERT INTO api_keys (organization_id, user_id, name, token_prefix, token_hash) VALUES ($1, $2, 'k', 'lw_x', '\x01') RETURNING id`, org, user)
	must(&group, `INSERT INTO worker_groups (organization_id, name) VALUES ($1, 'g') RETURNING id`, org)

	changes := []struct {
		query string
		args  []any
	}{
		{`UPDATE organizations SET is_active = false WHERE id = $1`, []any{org}},
		{`UPDATE users SET role = 'org_admin' WHERE id = $1`, []any{user}},
		{`UPDATE users SET is_active = false WHERE id = $1`, []any{user}},
		{`UPDATE users SET email = 'w@example.com' WHERE id = $1`, []any{user}},
		{`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, []any{key}},
		{`UPDATE auth_sessions SET revoked_at = now() WHERE id = $1`, []any{session}},
		{`UPDATE apps SET settings = '{"x": 1}' WHERE id = $1`, []any{app}},
		{`INSERT INTO app_workers (app_id, user_id, organization_id, role) VALUES ($1, $2, $3, 'LABELER')`, []any{app, user, org}},
		{`UPDATE app_workers SET role = 'MANAGER' WHERE app_id = $1`, []any{app}},
		{`DELETE FROM app_workers WHERE app_id = $1`, []any{app}},
		{`INSERT INTO worker_group_members (group_id, user_id, organization_id) VALUES ($1, $2, $3)`, []any{group, user, org}},
		{`INSERT INTO app_worker_groups (app_id, group_id, organization_id, role) VALUES ($1, $2, $3, 'REVIEWER')`, []any{app, group, org}},
		{`DELETE FROM worker_groups WHERE id = $1`, []any{group}}, // cascades to both memberships
		{`DELETE FROM api_keys WHERE id = $1`, []any{key}},
		{`DELETE FROM auth_sessions WHERE id = $1`, []any{session}},
		{`DELETE FROM apps WHERE id = $1`, []any{app}},
	}
	for _, c := range changes {
		if n := heard(t, l, db, c.query, c.args...); n == 0 {
			t.Errorf("not heard: %s", c.query)
		}
	}

	quiet := []string{
		`UPDATE users SET last_login_at = now() WHERE id = $1`,
		`UPDATE users SET first_name = 'X' WHERE id = $1`,
		`INSERT INTO auth_sessions (user_id, organization_id) SELECT id, organization_id FROM users WHERE id = $1`,
		`UPDATE auth_sessions SET refreshed_at = now() WHERE user_id = $1`,
		`INSERT INTO api_keys (organization_id, user_id, name, token_prefix, token_hash) SELECT organization_id, id, 'k2', 'lw_y', '\x02' FROM users WHERE id = $1`,
		`UPDATE api_keys SET last_used_at = now() WHERE user_id = $1`,
	}
	for _, q := range quiet {
		if n := heard(t, l, db, q, user); n != 0 {
			t.Errorf("heard %d changes from a write that changes no access: %s", n, q)
		}
	}
}

// TestBusGoesQuietWithoutItsConnection: when the listening connection is killed, memos stop being used
// until pq has reconnected and listens again, and nothing kept before is used after.
func TestBusGoesQuietWithoutItsConnection(t *testing.T) {
	t.Parallel()
	bus, db := listening(t)
	tab := memo.NewTable[string, int](bus, time.Minute, 10)
	loads := 0
	load := func() (int, error) { loads++; return loads, nil }
	_, _ = tab.Load("k", load)
	_, _ = tab.Load("k", load)
	if loads != 1 {
		t.Fatalf("%d loads while live, want 1", loads)
	}
	if _, err := db.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND query ILIKE 'listen%'`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for bus.Live() {
		if time.Now().After(deadline) {
			t.Fatal("still live after its connection was terminated")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for !bus.Live() {
		if time.Now().After(deadline) {
			t.Fatal("never listened again")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if v, _ := tab.Load("k", load); v != 2 {
		t.Fatalf("a value kept before the connection was lost was used after: %d", v)
	}
	// Listening again: a change moves the bus on.
	deadline = time.Now().Add(10 * time.Second)
	before := bus.Generation()
	if _, err := db.Exec(`UPDATE organizations SET is_active = is_active`); err != nil {
		t.Fatal(err)
	}
	for bus.Generation() == before {
		if time.Now().After(deadline) {
			t.Fatal("not heard after reconnecting")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestBusStartsWithoutItsDatabase: a server whose database does not answer yet starts anyway, with
// memos unused.
func TestBusStartsWithoutItsDatabase(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bus := memo.NewBus()
	start := time.Now()
	err := bus.Listen(ctx, "postgres://loopwork@127.0.0.1:1/none?sslmode=disable&connect_timeout=1",
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil || bus.Live() {
		t.Fatalf("Listen = %v, live %v; want nil and not live", err, bus.Live())
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Listen held the start for %s", took)
	}
	tab := memo.NewTable[int, int](bus, time.Minute, 10)
	loads := 0
	for i := 0; i < 2; i++ {
		_, _ = tab.Load(1, func() (int, error) { loads++; return 1, nil })
	}
	if loads != 2 {
		t.Fatalf("%d loads without listening, want 2", loads)
	}
}
