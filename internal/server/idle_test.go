package server_test

import (
	"context"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/testkit/pgwire"
)

// idleWindow is how long an idle server is watched, and idleBudget how many transactions it may make
// in that time: one a second on average (issue 28). The window is a minute so that the sweeps that
// wait longest when idle run in it, and the budget is no average of a lucky few seconds. Settling comes
// first, in steps of idleSettle until ten seconds pass at the idle pace (at most idleSettleMax): the
// window measures what idleness costs, not what starting does once (listening, electing a leader, each
// sweep's first look), and a backend reports what it did within about ten seconds of going idle.
const (
	idleSettle    = 10 * time.Second
	idleSettleMax = time.Minute
	idleWindow    = time.Minute
	idleBudget    = 60
)

// TestIdleServerCost starts a server process on a fresh database, gives it nothing to do, and counts
// the transactions it makes in a minute. Sweeps and polls that run whether or not there is work cost
// every idle tenant of a shared PostgreSQL, so they wait longer when they find nothing; this test fails
// when one does not. It takes over a minute, so it runs beside the others.
//
// The server reaches PostgreSQL through pgwire.Counter, which counts its transactions on the wire and
// names their statements. The database's own count (pg_stat_database) is logged beside it: it also holds
// what PostgreSQL does by itself, such as autovacuum's visits, which come and go with the rest of the
// cluster's load. A backend reports to it lazily (one that touches no table, such as a listening
// connection's, only when it exits), so the process is killed at the end of the minute and that count
// is read once its connections have closed.
func TestIdleServerCost(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("watches an idle server for a minute")
	}
	db := testkit.DB(t)
	ctx := context.Background()
	// The database's counts are read from another database of the cluster, so that reading them adds
	// nothing to them; the tables' figures can only be read in the database itself.
	admin, err := sqlx.Open("postgres", testkit.ServerURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var name string
	if err := db.GetContext(ctx, &name, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	// The server's connections carry a name of their own, to wait for them to close at the end.
	dsn, err := url.Parse(testkit.DSN(t, db))
	if err != nil {
		t.Fatal(err)
	}
	counter := pgwire.New(t, dsn.Host)
	dsn.Host = counter.Addr()
	q := dsn.Query()
	q.Set("application_name", "idle_server")
	dsn.RawQuery = q.Encode()
	// The default lease, not the tests' short one: the engine's sweep looks for lost attempts once per
	// lease when idle, and an operator's server runs with the default.
	p := testkit.Serve(t, testkit.BuildServer(t), dsn.String(), testkit.FreePort(t), "LOOPWORK_TASK_LEASE=30s")
	// Starting ends when the transactions slow to the idle pace: on a loaded machine (the whole suite on
	// two cores) electing a leader and each sweep's first looks take longer, and would otherwise be
	// counted as idleness.
	time.Sleep(idleSettle)
	for last, waited := counted(counter), idleSettle; waited < idleSettleMax; waited += idleSettle {
		time.Sleep(idleSettle)
		now := counted(counter)
		if now-last <= int(idleSettle/time.Second) {
			break
		}
		last = now
	}
	dbBefore := xacts(t, admin, name)
	tablesBefore := tableCounts(t, db)
	before, connsBefore, byBefore := counter.Snapshot()
	time.Sleep(idleWindow)
	after, connsAfter, byAfter := counter.Snapshot()
	p.Kill()
	waitClosed(t, admin, name)
	n := after - before
	t.Logf("an idle server made %d transactions in %s (%d connections opened); by statement:\n%s"+
		"the database counted %d, PostgreSQL's own work included; table scans and writes:\n%s",
		n, idleWindow, connsAfter-connsBefore, grown(byBefore, byAfter),
		xacts(t, admin, name)-dbBefore, grown(tablesBefore, tableCounts(t, db)))
	if n > idleBudget {
		t.Fatalf("an idle server made %d transactions in %s: more than %d", n, idleWindow, idleBudget)
	}
}

func counted(c *pgwire.Counter) int {
	n, _, _ := c.Snapshot()
	return n
}

// waitClosed waits up to ten seconds for the killed server's backends to exit (and so report).
func waitClosed(t *testing.T, admin *sqlx.DB, name string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left int
		if err := admin.Get(&left, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = $1 AND application_name = 'idle_server'`, name); err != nil {
			t.Fatal(err)
		}
		if left == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
}

// xacts is how many transactions database name has committed and rolled back so far.
func xacts(t *testing.T, admin *sqlx.DB, name string) int64 {
	t.Helper()
	var n int64
	if err := admin.Get(&n, `SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = $1`, name); err != nil {
		t.Fatal(err)
	}
	return n
}

// tableCounts reads each table's scans and row writes so far.
func tableCounts(t *testing.T, db *sqlx.DB) map[string]int64 {
	t.Helper()
	var rows []struct {
		Name   string `db:"relname"`
		Scans  int64  `db:"scans"`
		Writes int64  `db:"writes"`
		Auto   int64  `db:"auto"`
	}
	if err := db.Select(&rows, `SELECT relname, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) AS scans,
		n_tup_ins + n_tup_upd + n_tup_del AS writes, autovacuum_count + autoanalyze_count AS auto
		FROM pg_stat_all_tables`); err != nil {
		t.Fatal(err)
	}
	tables := map[string]int64{}
	for _, r := range rows {
		tables[r.Name+" scans"], tables[r.Name+" writes"] = r.Scans, r.Writes
		tables[r.Name+" autovacuum and autoanalyze runs"] = r.Auto
	}
	return tables
}

// grown lists what grew between two readings of counts, most first.
func grown[N int | int64](before, after map[string]N) string {
	type row struct {
		name string
		d    N
	}
	var rs []row
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			rs = append(rs, row{k, d})
		}
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].d > rs[j].d || rs[i].d == rs[j].d && rs[i].name < rs[j].name })
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "  %6d  %s\n", r.d, r.name)
	}
	return b.String()
}
