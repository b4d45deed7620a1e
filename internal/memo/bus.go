// Package memo keeps in process memory the rows that every request reads before doing its work — who
// the caller is, and what it may do on an app — and forgets them as soon as the database says they
// changed.
//
// The database says so through LISTEN/NOTIFY: statement triggers on the tables those rows come from
// (users, organizations, api_keys, auth_sessions, apps and the app memberships; the *_access_changed
// triggers, which call the SQL function notify_access_change) notify Channel when a transaction
// changing them commits, on whichever replica made the change. A notification, or any doubt about
// having heard every one (the listening connection dropped or is not up yet), moves the Bus to a new
// generation, and every memo filled in an older generation is ignored from then on. Changes made
// through this process also move it before their response is written, so a caller's next request always
// sees its own change.
package memo

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/lib/pq"
)

// Channel is the channel notify_access_change, the SQL function of those triggers, notifies.
const Channel = "loopwork_access"

// Bus counts the generations of the memoised rows. Its state is one word: the generation in the
// upper bits and, in the lowest bit, whether the process is listening (memos are used only then).
type Bus struct {
	state atomic.Uint64
	last  atomic.Pointer[string] // payload of the latest notification
	// used is set by every look at the bus (a memo consulted) and cleared by each check of the
	// connection; asleep marks a bus that stopped using memos because nobody looked (see watch), and
	// wanted asks the watch to check the connection now.
	used   atomic.Bool
	asleep atomic.Bool
	wanted chan struct{}
}

// NewBus returns a bus that is not listening yet: until Listen connects, memos always load.
func NewBus() *Bus { return &Bus{wanted: make(chan struct{}, 1)} }

// Invalidate starts a new generation: everything memoised before is reloaded on its next use.
func (b *Bus) Invalidate() {
	if b != nil {
		b.state.Add(2)
	}
}

func (b *Bus) setLive(live bool) {
	for {
		old := b.state.Load()
		next := (old + 2) &^ 1 // a new generation either way
		if live {
			next |= 1
		}
		if b.state.CompareAndSwap(old, next) {
			return
		}
	}
}

// current is the generation and whether memos may be used in it. A look at an asleep bus asks for the
// connection to be checked, after which memos are used again.
func (b *Bus) current() (gen uint64, live bool) {
	if b == nil {
		return 0, false
	}
	s := b.state.Load()
	if !b.used.Load() {
		b.used.Store(true)
	}
	if s&1 == 0 && b.asleep.Load() {
		select {
		case b.wanted <- struct{}{}:
		default:
		}
	}
	return s >> 1, s&1 == 1
}

// Generation counts the changes heard so far (with Live, what a test waits on).
func (b *Bus) Generation() uint64 {
	gen, _ := b.current()
	return gen
}

// LastHeard is the payload of the latest notification heard ("" before any). Notifications are heard
// in commit order, so once a payload sent after a change is the latest, the change has been heard.
func (b *Bus) LastHeard() string {
	if p := b.last.Load(); p != nil {
		return *p
	}
	return ""
}

// Live reports whether the bus is listening, so that memos are in use.
func (b *Bus) Live() bool {
	_, live := b.current()
	return live
}

// pingEvery is how often the listening connection is checked while memos are in use; a connection
// that died without a word (a network partition) is noticed within this time, and memos stop being
// used until it is back. While nobody consults a memo the connection is not checked at all (each ping
// is a transaction of an idle server): the bus falls asleep, using no memo, and the first look at it
// after that checks the connection before memos are used again.
const pingEvery = 5 * time.Second

// firstListenWait bounds how long Listen waits for its first LISTEN before letting the server start
// without memos (they come into use once it is in place).
const firstListenWait = 5 * time.Second

// Listen connects to the database at dsn, listens on Channel and keeps doing so, reconnecting as
// needed, until ctx ends. It returns once the first LISTEN is in place, or after firstListenWait
// without it (the bus turns live when it is); the bus is live from then on except while the
// connection is down.
func (b *Bus) Listen(ctx context.Context, dsn string, logger *slog.Logger) error {
	l := pq.NewListener(dsn, 100*time.Millisecond, 5*time.Second, func(ev pq.ListenerEventType, err error) {
		switch ev {
		case pq.ListenerEventDisconnected, pq.ListenerEventConnectionAttemptFailed:
			b.setLive(false)
			logger.Warn("memo: listening connection lost; memos unused until it is back", "error", err)
		case pq.ListenerEventReconnected:
			// pq has issued LISTEN again before it reports the reconnection; what changed meanwhile was
			// not heard, so the new generation forgets it all. The connection is new: checked.
			b.asleep.Store(false)
			b.setLive(true)
			logger.Info("memo: listening again")
		}
	})
	listening := make(chan error, 1)
	go func() { listening <- l.Listen(Channel) }()
	started := func(err error) error {
		if err != nil {
			_ = l.Close()
			return err
		}
		b.setLive(true)
		go func() {
			for n := range l.Notify {
				// A notification, or nil after a reconnection: either way, memos may be stale.
				b.Invalidate()
				if n != nil {
					b.last.Store(&n.Extra)
				}
			}
		}()
		go b.watch(ctx, l)
		return nil
	}
	select {
	case err := <-listening:
		return started(err)
	case <-ctx.Done():
		_ = l.Close()
		return ctx.Err()
	case <-time.After(firstListenWait):
		logger.Warn("memo: not listening yet; memos unused until it is")
		go func() {
			select {
			case err := <-listening:
				if err := started(err); err != nil {
					logger.Error("memo: listen", "error", err)
				}
			case <-ctx.Done():
				_ = l.Close()
			}
		}()
		return nil
	}
}

// watch pings the listening connection until ctx ends, then closes it. A ping that does not come back
// in time means notifications may not be coming either, so memos go unused until one does. Pings run
// apart from the reading of notifications: pq answers both through one connection. A tick with no look
// at the bus since the last one puts it to sleep instead of pinging (see pingEvery).
func (b *Bus) watch(ctx context.Context, l *pq.Listener) {
	tick := time.NewTicker(pingEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			b.setLive(false)
			_ = l.Close()
			return
		case <-tick.C:
			if !b.used.Swap(false) {
				b.sleep()
				continue
			}
		case <-b.wanted:
			if !b.asleep.Load() {
				continue
			}
		}
		done := make(chan error, 1)
		go func() { done <- l.Ping() }()
		select {
		case err := <-done:
			// A failed ping means a lost connection, which pq reports as an event.
			if err == nil && b.asleep.Swap(false) {
				b.setLive(true)
			}
		case <-time.After(pingEvery):
			b.setLive(false)
			select {
			case err := <-done:
				if err == nil {
					b.asleep.Store(false)
					b.setLive(true)
				}
			case <-ctx.Done():
			}
		case <-ctx.Done():
		}
	}
}

// sleep stops the use of memos until the connection has been checked again, when it is live.
func (b *Bus) sleep() {
	if _, live := b.peek(); live && !b.asleep.Swap(true) {
		b.setLive(false)
	}
}

// peek is current without counting as a look.
func (b *Bus) peek() (gen uint64, live bool) {
	s := b.state.Load()
	return s >> 1, s&1 == 1
}
