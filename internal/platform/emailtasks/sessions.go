package emailtasks

import (
	"net"
	"sync"
	"time"
)

// busyReply is what a connection beyond the session cap hears before it is closed: a temporary
// failure, so the sending server queues the message and tries again later.
const busyReply = "421 4.7.0 too many connections, try again later\r\n"

// limitListener hands the SMTP server at most max connections at once. A connection beyond that is
// answered 421 and closed at once instead of waiting in the backlog, so a sender that opens
// connections and holds them cannot make the listener stop answering. Every connection it hands out
// ends by timeout at the latest.
type limitListener struct {
	net.Listener
	slots   chan struct{}
	timeout time.Duration
}

func newLimitListener(ln net.Listener, max int, timeout time.Duration) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, max), timeout: timeout}
}

// Accept returns the next connection for which there is a slot; it refuses the others itself.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return newSessionConn(c, time.Now().Add(l.timeout), func() { <-l.slots }), nil
		default:
			go refuse(c)
		}
	}
}

// refuse tells a connection beyond the cap to come back later; a client that does not read the
// answer cannot hold the goroutine past a second.
func refuse(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(time.Second))
	_, _ = c.Write([]byte(busyReply))
	_ = c.Close()
}

// sessionConn is one accepted connection with an end that no later deadline moves: the SMTP server
// sets a read or write deadline per command, and those are clamped to the session's own, so a client
// that keeps sending within each command's timeout still cannot keep its slot for longer.
type sessionConn struct {
	net.Conn
	end     time.Time
	release func()
	once    sync.Once
}

func newSessionConn(c net.Conn, end time.Time, release func()) *sessionConn {
	s := &sessionConn{Conn: c, end: end, release: release}
	_ = c.SetDeadline(end)
	return s
}

func (c *sessionConn) clamp(t time.Time) time.Time {
	if t.IsZero() || t.After(c.end) {
		return c.end
	}
	return t
}

func (c *sessionConn) SetDeadline(t time.Time) error      { return c.Conn.SetDeadline(c.clamp(t)) }
func (c *sessionConn) SetReadDeadline(t time.Time) error  { return c.Conn.SetReadDeadline(c.clamp(t)) }
func (c *sessionConn) SetWriteDeadline(t time.Time) error { return c.Conn.SetWriteDeadline(c.clamp(t)) }

// Close closes the connection and gives its slot back, once however often it is called.
func (c *sessionConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
