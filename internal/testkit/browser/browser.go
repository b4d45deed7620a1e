// Package browser drives a headless Chromium for tests of the pages the server renders (the
// documentation viewers, the link page). It speaks the DevTools protocol over the pipe Chromium opens
// with --remote-debugging-pipe: NUL-separated JSON messages on file descriptors 3 and 4, so no
// WebSocket library and no debugging port are needed.
package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// ErrNotInstalled means no Chromium binary was found on PATH.
var ErrNotInstalled = errors.New("chromium not found (Debian: apt-get install -y chromium)")

// Find returns the path of the Chromium binary: $CHROMIUM when set, else the first known name on PATH.
func Find() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return exec.LookPath(p)
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNotInstalled
}

// flags keep the browser from talking to anyone but the pages it is sent to: no background updates,
// no sync, no QUIC probing, and every host name other than the loopback address resolves to nothing, so
// a page that tries to reach outside fails loudly instead of depending on the network.
var flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--disable-extensions", "--mute-audio", "--no-default-browser-check",
	"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
	"--remote-debugging-pipe", "about:blank",
}

// Browser is one running Chromium with a fresh profile.
type Browser struct {
	cmd     *exec.Cmd
	profile string
	send    io.WriteCloser

	mu       sync.Mutex
	nextID   int
	pending  map[int]chan reply
	sessions map[string]func(method string, params json.RawMessage)
	done     chan struct{}
	readErr  error
}

type reply struct {
	Result json.RawMessage
	Err    error
}

type message struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Start launches Chromium. Close stops it and removes its profile.
func Start() (*Browser, error) {
	bin, err := Find()
	if err != nil {
		return nil, err
	}
	profile, err := os.MkdirTemp("", "loopwork-chromium-")
	if err != nil {
		return nil, err
	}
	// Chromium reads commands from fd 3 and writes replies to fd 4.
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, append([]string{"--user-data-dir=" + profile}, flags...)...)
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(profile)
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	_ = cmdR.Close()
	_ = outW.Close()
	b := &Browser{cmd: cmd, profile: profile, send: cmdW, pending: map[int]chan reply{},
		sessions: map[string]func(string, json.RawMessage){}, done: make(chan struct{})}
	go b.read(outR)
	return b, nil
}

// read dispatches Chromium's messages: replies to the call waiting for them, events to their session.
func (b *Browser) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	var err error
	for {
		var raw []byte
		if raw, err = br.ReadBytes(0); err != nil {
			break
		}
		var m message
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				delete(b.pending, m.ID)
				rep := reply{Result: m.Result}
				if m.Error != nil {
					rep.Err = fmt.Errorf("%d %s", m.Error.Code, m.Error.Message)
				}
				ch <- rep
			}
		} else if h := b.sessions[m.SessionID]; h != nil {
			h(m.Method, m.Params)
		}
		b.mu.Unlock()
	}
	b.mu.Lock()
	b.readErr = fmt.Errorf("browser connection closed: %w", err)
	b.mu.Unlock()
	close(b.done)
}

// call sends one command (to the browser when session is empty) and decodes its result into out.
func (b *Browser) call(ctx context.Context, session, method string, params, out any) error {
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return b.readErr
	}
	b.nextID++
	id := b.nextID
	ch := make(chan reply, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(message{ID: id, Method: method, Params: p, SessionID: session})
	if err != nil {
		return err
	}
	if _, err := b.send.Write(append(raw, 0)); err != nil {
		return err
	}
	select {
	case rep := <-ch:
		if rep.Err != nil {
			return fmt.Errorf("%s: %w", method, rep.Err)
		}
		if out != nil {
			return json.Unmarshal(rep.Result, out)
		}
		return nil
	case <-b.done:
		return b.readErr
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Close stops the browser and removes its profile.
func (b *Browser) Close() {
	_ = b.call(context.Background(), "", "Browser.close", struct{}{}, nil)
	_ = b.send.Close()
	exited := make(chan struct{})
	go func() { _ = b.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		_ = b.cmd.Process.Kill()
		<-exited
	}
	_ = os.RemoveAll(b.profile)
}
