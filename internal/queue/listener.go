package queue

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loopwork/loopwork/internal/dbx"
)

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
	cfg, err := pgconn.ParseConfig(dbx.PgxDSN(p.dsn))
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
