package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
)

// listeningDriver is River's database/sql driver with a listener, which the database/sql driver lacks.
// With it River wakes a worker as soon as a transaction that inserted jobs commits (River sends
// pg_notify inside InsertTx) instead of at its next poll: the next task of a flow starts in
// milliseconds, not at the poll interval, and the poll itself can be rare (see pollInterval), because
// the listener also wakes the queues whenever a poll would have found something (see pgListener).
type listeningDriver struct {
	*riverdatabasesql.Driver
	db  *sql.DB
	dsn string
	// queues are the queues this client works, for the wake-ups the listener makes up.
	queues []string
	// heard is told of every insert notification, from this process or another (the sweeps' activity).
	heard func()

	mu       sync.Mutex
	listener *pgListener
}

func (d *listeningDriver) SupportsListener() bool { return true }

func (d *listeningDriver) GetListener(params *riverdriver.GetListenenerParams) riverdriver.Listener {
	l := &pgListener{db: d.db, dsn: d.dsn, schema: params.Schema, queues: d.queues, heard: d.heard}
	d.mu.Lock()
	d.listener = l
	d.mu.Unlock()
	return l
}

// GetExecutor is the database/sql driver's executor, whose transactions tell the listener when the
// jobs River's scheduler makes available fall due (scheduledExecutor).
func (d *listeningDriver) GetExecutor() riverdriver.Executor {
	return &scheduledExecutor{Executor: d.Driver.GetExecutor(), d: d}
}

// UnwrapTx is the database/sql driver's, which takes only its own transactions.
func (d *listeningDriver) UnwrapTx(execTx riverdriver.ExecutorTx) *sql.Tx {
	if t, ok := execTx.(*scheduledTx); ok {
		execTx = t.ExecutorTx
	}
	return d.Driver.UnwrapTx(execTx)
}

// wakeAt has the listener wake queue at t (a no-op before River asked for one).
func (d *listeningDriver) wakeAt(queue string, t time.Time) {
	d.mu.Lock()
	l := d.listener
	d.mu.Unlock()
	if l != nil {
		l.wakeAt(queue, t)
	}
}

// scheduledExecutor passes everything on to River's executor, and tells the listener about the jobs
// River's scheduler (on the leader, every 5 s) moves to available ahead of their time. The scheduler
// notifies the queues only of jobs already due, and leaves the others to the workers' poll: a delay
// task's end, a retry after its backoff. The poll used to come every 250 ms; now the listener wakes the
// queue when such a job falls due instead. River's driver interfaces say they are not a stable API;
// the scheduler reaches JobSchedule through Begin, in a transaction of its own.
type scheduledExecutor struct {
	riverdriver.Executor
	d *listeningDriver
}

func (e *scheduledExecutor) Begin(ctx context.Context) (riverdriver.ExecutorTx, error) {
	tx, err := e.Executor.Begin(ctx)
	if err != nil {
		return nil, err
	}
	return &scheduledTx{ExecutorTx: tx, d: e.d}, nil
}

type scheduledTx struct {
	riverdriver.ExecutorTx
	d *listeningDriver
}

func (t *scheduledTx) JobSchedule(ctx context.Context, params *riverdriver.JobScheduleParams) ([]*riverdriver.JobScheduleResult, error) {
	res, err := t.ExecutorTx.JobSchedule(ctx, params)
	now := time.Now()
	for _, r := range res {
		if !r.ConflictDiscarded && r.Job.ScheduledAt.After(now) {
			t.d.wakeAt(r.Job.Queue, r.Job.ScheduledAt)
		}
	}
	return res, err
}

// insertTopic is River's channel for new jobs, and insertPayload its notification's payload (River's
// own wire format, which its clients in other languages send as well).
const insertTopic = "river_insert"

type insertPayload struct {
	Queue string `json:"queue"`
}

// Wake-ups the listener makes up stand in for River's poll while there is work about. River sends at
// most one insert notification per queue per FetchCooldown from each process, so a job committed just
// after another may find the worker woken by the first already done fetching; a short poll used to
// catch it. The listener instead wakes the queue every activePoll for activeFor after the last insert
// it heard, and stays silent when nothing happens, so an idle server does not poll at all. Wake-ups
// due within wakeSlack of one another are made one.
const (
	activePoll = 250 * time.Millisecond
	activeFor  = 5 * time.Second
	wakeSlack  = 20 * time.Millisecond
)

// pgListener is River's riverdriver.Listener on a connection of its own (pgconn, PostgreSQL's wire
// protocol without database/sql). River reconnects it itself after an error, listening again on its
// topics.
//
// Its Ping sends a bare Sync message, which PostgreSQL answers with ReadyForQuery without starting a
// transaction: River pings an idle listener every five seconds, and a query (lib/pq's ping is an empty
// one) would be a transaction each time. The round trip still proves the connection and the server
// alive.
//
// Besides the notifications it hears, it returns insert notifications it makes up (PID 0) to wake
// River's workers when a poll would have found a job: after a reconnection (what was sent meanwhile is
// lost), every activePoll while inserts are heard, and when a job the scheduler made available early
// falls due (wakeAt).
type pgListener struct {
	db     *sql.DB
	dsn    string
	queues []string
	heard  func()

	// mu is held for every use of the connection, including the wait for notifications; River stops a
	// wait before it listens, unlistens or pings.
	mu     sync.Mutex
	conn   *pgconn.PgConn
	prefix string
	// schema is set when connecting (under mu and schemaMu) and read under schemaMu alone, so that
	// reading it does not wait for a wait.
	schemaMu sync.Mutex
	schema   string
	// got are notifications read off the connection and not yet returned (one read may bring more
	// than one); lastInsert is when an insert notification was last heard, and connects counts
	// connections.
	got        []*pgconn.Notification
	lastInsert time.Time
	polling    bool
	connects   int

	// wakeMu guards the made-up wake-ups to come (wakes, by time) and the wait in progress, which a
	// wake-up earlier than its end cuts short.
	wakeMu     sync.Mutex
	wakes      []wake
	waitUntil  time.Time
	cancelWait context.CancelFunc
}

type wake struct {
	at    time.Time
	queue string
	poll  bool // a poll's, renewed while inserts are heard
}

func (p *pgListener) Connect(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn != nil {
		return errors.New("queue: listener already connected")
	}
	schema := p.Schema()
	if schema == "" {
		if err := p.db.QueryRowContext(ctx, `SELECT coalesce(current_schema(), '')`).Scan(&schema); err != nil {
			return err
		}
		p.schemaMu.Lock()
		p.schema = schema
		p.schemaMu.Unlock()
	}
	if schema != "" {
		p.prefix = schema + "."
	}
	cfg, err := pgconn.ParseConfig(listenerDSN(p.dsn))
	if err != nil {
		return err
	}
	cfg.OnNotification = func(_ *pgconn.PgConn, n *pgconn.Notification) { p.got = append(p.got, n) }
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	p.conn = conn
	p.got = nil
	if p.connects++; p.connects > 1 {
		for _, q := range p.queues {
			p.wakeAt(q, time.Now())
		}
	}
	return nil
}

// listenerDSN drops from dsn the settings only lib/pq knows (the pool's driver), which pgconn would
// otherwise send to the server as run-time parameters it refuses.
func listenerDSN(dsn string) string {
	pqOnly := []string{"binary_parameters", "disable_prepared_binary_result"}
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		q := u.Query()
		for _, k := range pqOnly {
			q.Del(k)
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	var kept []string
	for _, f := range strings.Fields(dsn) {
		if k, _, _ := strings.Cut(f, "="); !slices.Contains(pqOnly, k) {
			kept = append(kept, f)
		}
	}
	return strings.Join(kept, " ")
}

func (p *pgListener) connected() (*pgconn.PgConn, error) {
	if p.conn == nil {
		return nil, errors.New("queue: listener not connected")
	}
	return p.conn, nil
}

func (p *pgListener) exec(ctx context.Context, sql string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	conn, err := p.connected()
	if err != nil {
		return err
	}
	_, err = conn.Exec(ctx, sql).ReadAll()
	return err
}

func (p *pgListener) Listen(ctx context.Context, topic string) error {
	return p.exec(ctx, `LISTEN "`+p.prefix+topic+`"`)
}

func (p *pgListener) Unlisten(ctx context.Context, topic string) error {
	return p.exec(ctx, `UNLISTEN "`+p.prefix+topic+`"`)
}

// Ping sends Sync and reads up to ReadyForQuery: a round trip that opens no transaction (see pgListener).
func (p *pgListener) Ping(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	conn, err := p.connected()
	if err != nil {
		return err
	}
	conn.Frontend().SendSync(&pgproto3.Sync{})
	if err := conn.Frontend().Flush(); err != nil {
		return err
	}
	for {
		msg, err := conn.ReceiveMessage(ctx)
		if err != nil {
			return err
		}
		switch m := msg.(type) {
		case *pgproto3.ReadyForQuery:
			return nil
		case *pgproto3.ErrorResponse:
			return pgconn.ErrorResponseToPgError(m)
		}
	}
}

func (p *pgListener) Schema() string {
	p.schemaMu.Lock()
	defer p.schemaMu.Unlock()
	return p.schema
}

// SetAfterConnectExec is for River's own tests.
func (p *pgListener) SetAfterConnectExec(string) {}

// WaitForNotification returns the next notification, heard or made up.
func (p *pgListener) WaitForNotification(ctx context.Context) (*riverdriver.Notification, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	conn, err := p.connected()
	if err != nil {
		return nil, err
	}
	for {
		if n := p.next(time.Now()); n != nil {
			return n, nil
		}
		if err := p.wait(ctx, conn); err != nil {
			return nil, err
		}
	}
}

// next is the notification to return now, if any: those heard in order, then a made-up one due. A
// heard insert notification starts (or extends) the time of polls.
func (p *pgListener) next(now time.Time) *riverdriver.Notification {
	if len(p.got) > 0 {
		n := p.got[0]
		p.got = p.got[1:]
		topic := strings.TrimPrefix(n.Channel, p.prefix)
		if topic == insertTopic {
			p.lastInsert = now
			if !p.polling {
				p.polling = true
				for _, q := range p.queues {
					p.addWake(wake{at: now.Add(activePoll), queue: q, poll: true})
				}
			}
			if p.heard != nil {
				p.heard()
			}
		}
		return &riverdriver.Notification{Topic: topic, Payload: n.Payload}
	}
	w, ok := p.due(now)
	if !ok {
		return nil
	}
	if w.poll {
		if now.Sub(p.lastInsert) > activeFor {
			p.polling = false
			return p.next(now)
		}
		p.addWake(wake{at: now.Add(activePoll), queue: w.queue, poll: true})
	}
	b, _ := json.Marshal(insertPayload{Queue: w.queue})
	return &riverdriver.Notification{Topic: insertTopic, Payload: string(b)}
}

// due takes the earliest wake-up if its time has come.
func (p *pgListener) due(now time.Time) (wake, bool) {
	p.wakeMu.Lock()
	defer p.wakeMu.Unlock()
	if len(p.wakes) == 0 || p.wakes[0].at.After(now) {
		return wake{}, false
	}
	w := p.wakes[0]
	p.wakes = p.wakes[1:]
	return w, true
}

// wakeAt makes up an insert notification for queue at t (see scheduledExecutor), cutting short a wait
// that would end later.
func (p *pgListener) wakeAt(queue string, t time.Time) {
	p.addWake(wake{at: t, queue: queue})
}

func (p *pgListener) addWake(w wake) {
	p.wakeMu.Lock()
	defer p.wakeMu.Unlock()
	i, _ := slices.BinarySearchFunc(p.wakes, w.at, func(x wake, t time.Time) int { return x.at.Compare(t) })
	// A wake-up of the same queue close to this one does: two fetches within wakeSlack find the same jobs.
	for _, j := range []int{i - 1, i} {
		if j >= 0 && j < len(p.wakes) && p.wakes[j].queue == w.queue && p.wakes[j].poll == w.poll &&
			p.wakes[j].at.Sub(w.at).Abs() < wakeSlack {
			return
		}
	}
	p.wakes = slices.Insert(p.wakes, i, w)
	if p.cancelWait != nil && w.at.Before(p.waitUntil) {
		p.cancelWait()
	}
}

// wait reads the connection until a notification arrives, ctx ends or a wake-up is due.
func (p *pgListener) wait(ctx context.Context, conn *pgconn.PgConn) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p.wakeMu.Lock()
	until := time.Now().Add(time.Hour)
	if len(p.wakes) > 0 {
		until = p.wakes[0].at
	}
	p.waitUntil, p.cancelWait = until, cancel
	p.wakeMu.Unlock()
	defer func() {
		p.wakeMu.Lock()
		p.cancelWait = nil
		p.wakeMu.Unlock()
	}()
	wctx, cancelDeadline := context.WithDeadline(wctx, until)
	defer cancelDeadline()
	err := conn.WaitForNotification(wctx)
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		return nil // a wake-up is due, or an earlier one came; the connection stays usable after a wait cut short
	}
	return err
}

func (p *pgListener) Close(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn == nil {
		return nil
	}
	err := p.conn.Close(ctx)
	p.conn = nil
	return err
}
