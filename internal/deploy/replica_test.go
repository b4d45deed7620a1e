package deploy_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/db/migrations"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestReadReplica runs a server against a primary and a real streaming replica of it (pg_basebackup -R,
// a hot standby) with LOOPWORK_READ_DATABASE_URL, and shows what a client sees: while the replica
// stops replaying, a job just submitted reads back by id (the primary) but is missing from the list and
// the counts (the replica); once it replays again, they catch up.
func TestReadReplica(t *testing.T) {
	basebackup := pgBinary(t, "pg_basebackup")
	primaryURL := testkit.OtherPostgres(t)
	ctx := context.Background()
	admin := openDB(t, primaryURL)
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE loopwork`); err != nil {
		t.Fatal(err)
	}
	dsn := strings.Replace(primaryURL, "/postgres?", "/loopwork?", 1)
	primary := openDB(t, dsn)
	p, err := migrations.NewProvider(primary.DB, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	replicaURL := startReplica(t, basebackup, primaryURL)
	replicaDSN := strings.Replace(replicaURL, "/postgres?", "/loopwork?", 1)
	replica := openDB(t, replicaDSN)

	srv := testkit.Serve(t, testkit.BuildServer(t), dsn, testkit.FreePort(t), "LOOPWORK_READ_DATABASE_URL="+replicaDSN)
	key := testkit.SeedCaller(t, primary)
	var app struct{ ID string }
	testkit.Call(t, srv.URL, key, "POST", "/v1/apps", map[string]any{"name": "replicated"}, &app)
	submit := func() int64 {
		var job struct{ ID int64 }
		testkit.Call(t, srv.URL, key, "POST", "/v1/apps/"+app.ID+"/jobs", map[string]any{"input": map[string]any{"n": 1}}, &job)
		return job.ID
	}
	listed := func() (total, counted int64) {
		var list struct{ Total int64 }
		testkit.Call(t, srv.URL, key, "GET", "/v1/apps/"+app.ID+"/jobs?size=10", nil, &list)
		var count struct{ Total int64 }
		testkit.Call(t, srv.URL, key, "GET", "/v1/apps/"+app.ID+"/jobs/count", nil, &count)
		return list.Total, count.Total
	}
	waitListed := func(want int64) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			total, counted := listed()
			if total == want && counted == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("list total %d, count total %d; want %d from the replica", total, counted, want)
			}
		}
	}

	submit()
	waitListed(1)
	if _, err := replica.ExecContext(ctx, `SELECT pg_wal_replay_pause()`); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var state string
		if err := replica.GetContext(ctx, &state, `SELECT pg_get_wal_replay_pause_state()`); err != nil {
			t.Fatal(err)
		}
		if state == "paused" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replay pause state %q", state)
		}
	}
	id := submit()
	testkit.Call(t, srv.URL, key, "GET", fmt.Sprintf("/v1/apps/%s/jobs/%d", app.ID, id), nil, nil)
	if total, counted := listed(); total != 1 || counted != 1 {
		t.Fatalf("with the replica paused, list total %d and count total %d: the lists did not read the replica", total, counted)
	}
	if _, err := replica.ExecContext(ctx, `SELECT pg_wal_replay_resume()`); err != nil {
		t.Fatal(err)
	}
	waitListed(2)
}

func openDB(t *testing.T, dsn string) *sqlx.DB {
	t.Helper()
	db, err := dbx.Open(context.Background(), dsn, dbx.PoolOptions{MaxOpenConns: 4, MaxIdleConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// pgBinary finds a PostgreSQL program where internal/tools/pg.sh does.
func pgBinary(t *testing.T, name string) string {
	t.Helper()
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	if d := os.Getenv("PG_BINDIR"); d != "" {
		dirs = append([]string{d}, dirs...)
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, name)); err == nil {
			return filepath.Join(d, name)
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	t.Skipf("no %s: a streaming replica cannot be made here", name)
	return ""
}

// startReplica copies the primary with pg_basebackup -R (which writes standby.signal and the
// primary_conninfo) and starts the copy with pg.sh, as a hot standby streaming from the primary.
func startReplica(t *testing.T, basebackup, primaryURL string) string {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(here), "..", "tools", "pg.sh")
	dir, err := os.MkdirTemp("", "loopwork-replica.")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = exec.Command(script, "stop", dir).Run()
		_ = os.RemoveAll(dir)
	})
	u, err := url.Parse(primaryURL)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(basebackup, "-h", u.Hostname(), "-p", u.Port(), "-U", "postgres", "-D", filepath.Join(dir, "data"), "-R", "-X", "stream", "-c", "fast")
	if os.Geteuid() == 0 {
		// PostgreSQL runs as the user pg.sh chose for the primary, who must own the copy.
		owner := "postgres"
		if _, err := user.Lookup(owner); err != nil {
			owner = "loopwork-pg"
		}
		if out, err := exec.Command("chown", owner, dir).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
		cmd = exec.Command("runuser", append([]string{"-u", owner, "--"}, cmd.Args...)...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pg_basebackup: %v\n%s", err, out)
	}
	out, err := exec.Command(script, "start", dir, "test").Output()
	if err != nil {
		t.Fatalf("start the replica: %v", err)
	}
	return strings.TrimSpace(string(out))
}
