package queue

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"

	"github.com/loopwork/loopwork/internal/testkit/pgwire"
	"github.com/loopwork/loopwork/internal/testkit/testdb"
)

// TestListenerPingOpensNoTransaction: River pings an idle listener every five seconds; a ping must not
// be a transaction of the database, or an idle server pays for it (issue 28). The listener connects
// through pgwire.Counter, which counts transactions on the wire: a bare Sync, answered by ReadyForQuery,
// opens none in PostgreSQL, while any query would. (The database's own count would also hold
// autovacuum's visits, which come and go with the cluster's load.)
func TestListenerPingOpensNoTransaction(t *testing.T) {
	t.Parallel()
	db := testdb.EmptyDB(t)
	ctx := context.Background()
	dsn, err := url.Parse(testdb.DSN(t, db))
	if err != nil {
		t.Fatal(err)
	}
	counter := pgwire.New(t, dsn.Host)
	dsn.Host = counter.Addr()
	l := &pgListener{db: db.DB, dsn: dsn.String()}
	if err := l.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer l.Close(ctx) //nolint:errcheck
	before, conns, _ := counter.Snapshot()
	if before != 1 || conns != 1 {
		t.Fatalf("connecting made %d transactions on %d connections, want its start alone", before, conns)
	}
	for range 50 {
		if err := l.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n, _, by := counter.Snapshot(); n != before {
		t.Fatalf("50 pings made %d transactions, want none: %v", n-before, by)
	}
	// The counter does see a query on the same connection, so the pings' nought is no blind spot.
	if err := l.Listen(ctx, "queue_test"); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := counter.Snapshot(); n != before+1 {
		t.Fatalf("LISTEN made %d transactions, want 1", n-before)
	}
}

type wokenArgs struct{}

func (wokenArgs) Kind() string { return "queue_test_woken" }

type wokenWorker struct {
	river.WorkerDefaults[wokenArgs]
	ran chan time.Time
}

func (w *wokenWorker) Work(context.Context, *river.Job[wokenArgs]) error {
	w.ran <- time.Now()
	return nil
}

// wokenClient starts a client whose poll never comes within a test, so that whatever runs was woken.
func wokenClient(t *testing.T) (*Client, *listeningDriver, chan time.Time, *sqlx.DB) {
	t.Helper()
	db := testdb.DB(t)
	ran := make(chan time.Time, 10)
	workers := river.NewWorkers()
	river.AddWorker(workers, &wokenWorker{ran: ran})
	c, err := New(db.DB, testdb.DSN(t, db), workers, Options{PollInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Stop(c, 5*time.Second) })
	return c, c.Driver().(*listeningDriver), ran, db
}

// TestScheduledJobIsWokenWhenDue: River's scheduler makes a job available ahead of its time without
// notifying anyone; the listener wakes the queue when it falls due, which the poll used to find.
func TestScheduledJobIsWokenWhenDue(t *testing.T) {
	t.Parallel()
	c, _, ran, _ := wokenClient(t)
	due := time.Now().Add(1500 * time.Millisecond)
	if _, err := c.Insert(context.Background(), wokenArgs{}, &river.InsertOpts{ScheduledAt: due}); err != nil {
		t.Fatal(err)
	}
	select {
	case at := <-ran:
		// The scheduler runs every 5 s on the leader; the job runs at its time, or at the first run
		// after it.
		if at.Before(due) {
			t.Fatalf("the job ran %s before its time", due.Sub(at))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a scheduled job did not run within 10 s of being inserted without a poll")
	}
}

// TestReconnectionWakesTheQueue: a job committed while the listening connection is down is not
// announced to this process; once River has reconnected the listener, it wakes the queue itself.
func TestReconnectionWakesTheQueue(t *testing.T) {
	t.Parallel()
	c, d, ran, db := wokenClient(t)
	ctx := context.Background()
	// Once listening, take the connection away and insert while it is down.
	deadline := time.Now().Add(10 * time.Second)
	for {
		d.mu.Lock()
		l := d.listener
		d.mu.Unlock()
		if l != nil && l.Schema() != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the listener never connected")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND query ILIKE 'listen%'`); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertTx(ctx, tx, wokenArgs{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ran:
	case <-time.After(15 * time.Second):
		t.Fatal("a job inserted while the listener was down did not run within 15 s without a poll")
	}
}

var _ riverdriver.Listener = (*pgListener)(nil)
