package queue

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/lib/pq"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
)

// listeningDriver is River's database/sql driver with a listener made of lib/pq's, which the
// database/sql driver lacks. With it River wakes a worker as soon as a transaction that inserted jobs
// commits (River sends pg_notify inside InsertTx) instead of at its next poll: the next task of a flow
// starts in milliseconds, not at the poll interval. Polling stays as the backstop.
type listeningDriver struct {
	*riverdatabasesql.Driver
	db  *sql.DB
	dsn string
}

func (d *listeningDriver) SupportsListener() bool { return true }

func (d *listeningDriver) GetListener(params *riverdriver.GetListenenerParams) riverdriver.Listener {
	return &pqListener{db: d.db, dsn: d.dsn, schema: params.Schema}
}

// pqListener is a riverdriver.Listener over pq.Listener, which reconnects and listens again by itself.
type pqListener struct {
	db     *sql.DB
	dsn    string
	mu     sync.Mutex
	l      *pq.Listener
	schema string
	prefix string
}

func (p *pqListener) Connect(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.l != nil {
		return errors.New("queue: listener already connected")
	}
	if p.schema == "" {
		if err := p.db.QueryRowContext(ctx, `SELECT coalesce(current_schema(), '')`).Scan(&p.schema); err != nil {
			return err
		}
	}
	if p.schema != "" {
		p.prefix = p.schema + "."
	}
	p.l = pq.NewListener(p.dsn, 100*time.Millisecond, 5*time.Second, nil)
	return nil
}

func (p *pqListener) listener() (*pq.Listener, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.l == nil {
		return nil, errors.New("queue: listener not connected")
	}
	return p.l, nil
}

func (p *pqListener) Listen(_ context.Context, topic string) error {
	l, err := p.listener()
	if err != nil {
		return err
	}
	if err := l.Listen(p.prefix + topic); err != nil && !errors.Is(err, pq.ErrChannelAlreadyOpen) {
		return err
	}
	return nil
}

func (p *pqListener) Unlisten(_ context.Context, topic string) error {
	l, err := p.listener()
	if err != nil {
		return err
	}
	if err := l.Unlisten(p.prefix + topic); err != nil && !errors.Is(err, pq.ErrChannelNotOpen) {
		return err
	}
	return nil
}

func (p *pqListener) Ping(context.Context) error {
	l, err := p.listener()
	if err != nil {
		return err
	}
	return l.Ping()
}

func (p *pqListener) Schema() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.schema
}

// SetAfterConnectExec is for River's own tests.
func (p *pqListener) SetAfterConnectExec(string) {}

// WaitForNotification returns the next notification. pq sends nil after it reconnected; notifications
// may have been missed then, which River's polling covers, so the wait simply goes on.
func (p *pqListener) WaitForNotification(ctx context.Context) (*riverdriver.Notification, error) {
	l, err := p.listener()
	if err != nil {
		return nil, err
	}
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case n, ok := <-l.Notify:
			if !ok {
				return nil, errors.New("queue: listener closed")
			}
			if n == nil {
				continue
			}
			return &riverdriver.Notification{Topic: strings.TrimPrefix(n.Channel, p.prefix), Payload: n.Extra}, nil
		}
	}
}

func (p *pqListener) Close(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.l == nil {
		return nil
	}
	err := p.l.Close()
	p.l = nil
	return err
}
