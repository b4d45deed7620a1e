// Package pgwire counts, from PostgreSQL's wire protocol, the transactions a client makes: tests of what
// an idle server or a listener's ping costs count them here, where PostgreSQL's own work in the same
// database (autovacuum's runs) does not show.
package pgwire

import (
	"encoding/binary"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// Counter stands between a client (a server process, a listener) and PostgreSQL and counts, from the
// wire protocol, the transactions the client's connections make: a ReadyForQuery reporting "idle" after
// a query, parse, bind, describe, execute or function call ends one, and so does each connection's
// start. pg_stat_database counts what PostgreSQL does itself as well (autovacuum's visits are
// transactions of the database too), which on a loaded machine can be as many as the client's; this
// counts only the client's, and says which statements they were.
type Counter struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	total int
	conns int
	by    map[string]int // statement (or "connection start") → transactions it ended
}

// New starts a Counter in front of target (host:port), closed when the test ends; clients connect to
// its Addr with SSL off.
func New(t testing.TB, target string) *Counter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &Counter{ln: ln, target: target, by: map[string]int{}}
	t.Cleanup(func() { _ = ln.Close() })
	go c.accept()
	return c
}

// Addr is where clients connect instead of target.
func (c *Counter) Addr() string { return c.ln.Addr().String() }

func (c *Counter) accept() {
	for {
		client, err := c.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", c.target)
		if err != nil {
			_ = client.Close()
			continue
		}
		w := &wire{c: c, named: map[string]string{}, last: "connection start", pending: true}
		go func() { w.fromClient(client, server); _ = server.Close() }()
		go func() { w.fromServer(server, client); _ = client.Close() }()
	}
}

// Snapshot returns the transactions so far, the connections started, and how many transactions each
// statement began (a copy).
func (c *Counter) Snapshot() (int, int, map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	by := make(map[string]int, len(c.by))
	for k, v := range c.by {
		by[k] = v
	}
	return c.total, c.conns, by
}

// wire is one connection's state: the last statement the client sent, and whether anything that runs
// in a transaction (a query, or a parse, bind, describe, execute or function call) has been sent since
// the last ReadyForQuery; a bare Sync, as the listener's ping, opens none.
type wire struct {
	c       *Counter
	named   map[string]string // prepared statements' text by name (read and written by fromClient only)
	mu      sync.Mutex
	last    string
	pending bool
}

var spaces = regexp.MustCompile(`\s+`)

func (w *wire) fromClient(client io.Reader, server io.Writer) {
	// The start-up message has no type byte; SSL is not asked for (sslmode=disable).
	var n [4]byte
	if _, err := io.ReadFull(client, n[:]); err != nil {
		return
	}
	body := make([]byte, binary.BigEndian.Uint32(n[:])-4)
	if _, err := io.ReadFull(client, body); err != nil {
		return
	}
	if _, err := server.Write(append(n[:], body...)); err != nil {
		return
	}
	for {
		typ, body, raw, err := readMessage(client)
		if err != nil {
			return
		}
		var text string
		switch typ {
		case 'Q': // the query
			text, _, _ = strings.Cut(string(body), "\x00")
		case 'P': // the statement's name, then its query
			name, rest, _ := strings.Cut(string(body), "\x00")
			text, _, _ = strings.Cut(rest, "\x00")
			w.named[name] = text
		case 'B': // the portal's name, then the statement's (a statement prepared before is not sent again)
			_, rest, _ := strings.Cut(string(body), "\x00")
			name, _, _ := strings.Cut(rest, "\x00")
			text = w.named[name]
		}
		switch typ {
		case 'Q', 'P', 'B', 'D', 'E', 'F':
			// A parse, bind or describe opens a transaction too when a Sync follows it before an
			// execute (a driver preparing a statement), so each counts like a query.
			w.mu.Lock()
			// A transaction is named by its first statement after BEGIN.
			if text = strings.TrimSpace(spaces.ReplaceAllString(text, " ")); text != "" &&
				(!w.pending || strings.HasPrefix(w.last, "BEGIN")) {
				w.last = text[:min(len(text), 72)]
			}
			w.pending = true
			w.mu.Unlock()
		}
		if _, err := server.Write(raw); err != nil {
			return
		}
	}
}

func (w *wire) fromServer(server io.Reader, client io.Writer) {
	for {
		typ, body, raw, err := readMessage(server)
		if err != nil {
			return
		}
		if typ == 'Z' && len(body) == 1 && body[0] == 'I' {
			w.mu.Lock()
			if w.pending {
				w.c.mu.Lock()
				w.c.total++
				w.c.by[w.last]++
				if w.last == "connection start" {
					w.c.conns++
				}
				w.c.mu.Unlock()
				w.pending = false
			}
			w.mu.Unlock()
		}
		if _, err := client.Write(raw); err != nil {
			return
		}
	}
}

// readMessage reads one typed message: its type, its body, and the whole of it as read.
func readMessage(r io.Reader) (byte, []byte, []byte, error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return 0, nil, nil, err
	}
	raw := make([]byte, 1+binary.BigEndian.Uint32(head[1:]))
	copy(raw, head[:])
	if _, err := io.ReadFull(r, raw[5:]); err != nil {
		return 0, nil, nil, err
	}
	return head[0], raw[5:], raw, nil
}
