package conversations

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
)

// sse writes server-sent events: an event line, an id line and one data line of one-line JSON each,
// flushed at once; comments keep a quiet stream open. Writes after the client left are dropped.
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
	return s.write(fmt.Sprintf("event: %s\nid: %s\ndata: %s\n\n", name, id, b))
}

func (s *sse) comment(text string) error { return s.write(": " + text + "\n\n") }

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
