package conversations

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"
)

// sse writes server-sent events: an event line, an id line and the data lines (one, of one-line JSON)
// of each event, flushed at once; comments keep a quiet stream open. Writes after the client left are dropped.
type sse struct {
	mu   sync.Mutex
	w    http.ResponseWriter
	rc   *http.ResponseController
	gone bool
}

func newSSE(w http.ResponseWriter) *sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // proxies such as nginx would hold the events back
	w.WriteHeader(http.StatusOK)
	s := &sse{w: w, rc: http.NewResponseController(w)}
	s.flush()
	return s
}

// event sends one event; data is encoded as JSON (encoding/json never writes a raw line break).
func (s *sse) event(name, id string, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	text, err := frame(name, id, b)
	if err != nil {
		return err
	}
	return s.write(text)
}

func (s *sse) comment(text string) error { return s.write(": " + text + "\n\n") }

// frame writes one event as the event-stream format defines it (WHATWG HTML, server-sent events): an
// event line, an id line, a data line per line of data, and a blank line. A client reads lines ending
// in CR, LF or CRLF, so the data is split at each of them (and read back joined by LF); the event name
// and id have no such escape and must be one line, and an id with NUL is ignored by clients, so either
// is refused rather than sent as a different event. Text that is not UTF-8 would reach a client altered.
func frame(name, id string, data []byte) (string, error) {
	switch {
	case strings.ContainsAny(name, "\r\n") || !utf8.ValidString(name):
		return "", fmt.Errorf("sse: event name %q is not one line of UTF-8", name)
	case strings.ContainsAny(id, "\r\n\x00") || !utf8.ValidString(id):
		return "", fmt.Errorf("sse: event id %q is not one line of UTF-8 without NUL", id)
	case !utf8.Valid(data):
		return "", fmt.Errorf("sse: event data is not UTF-8")
	}
	var b strings.Builder
	b.Grow(len(name) + len(id) + len(data) + 24)
	if name != "" {
		b.WriteString("event: " + name + "\n")
	}
	b.WriteString("id: " + id + "\n")
	for {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			break
		}
		b.WriteString("data: ")
		b.Write(data[:i])
		b.WriteByte('\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	b.WriteString("data: ")
	b.Write(data)
	b.WriteString("\n\n")
	return b.String(), nil
}

func (s *sse) write(text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone {
		return http.ErrHandlerTimeout
	}
	if _, err := s.w.Write([]byte(text)); err != nil {
		s.gone = true
		return err
	}
	return s.flush()
}

func (s *sse) flush() error {
	if err := s.rc.Flush(); err != nil {
		s.gone = true
		return err
	}
	return nil
}
