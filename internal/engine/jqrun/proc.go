package jqrun

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// child is one evaluating process with the parent's ends of its pipes.
type child struct {
	cmd    *exec.Cmd
	in     *os.File      // its stdin
	out    *os.File      // its stdout
	stderr *capped       // what it wrote to stderr, the first few KB (why it died)
	r      *bufio.Reader // out, buffered: a frame's header and body come in one read

	once   sync.Once
	killed bool          // set by kill, read after done is closed
	done   chan struct{} // closed once the process has been waited for
}

// start runs the executable as a child with env as its whole environment, in a process group of its
// own, with no file descriptors but its three pipes.
func start(exe string, env string) (*child, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	c := &child{in: inW, out: outR, stderr: &capped{max: 4 << 10}, done: make(chan struct{})}
	c.r = bufio.NewReaderSize(spinReader{c}, 64<<10)
	c.cmd = exec.Command(exe)
	c.cmd.Env = []string{env}
	c.cmd.Dir = "/"
	c.cmd.Stdin, c.cmd.Stdout, c.cmd.Stderr = inR, outW, c.stderr
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = c.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	go func() {
		_ = c.cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// eval sends one request and reads its response, both before the deadline; ctx ending interrupts it.
func (c *child) eval(ctx context.Context, req request, limit time.Duration, maxFrame int64) (response, error) {
	deadline := time.Now().Add(limit)
	stop := context.AfterFunc(ctx, func() {
		_ = c.in.SetWriteDeadline(time.Now())
		_ = c.out.SetReadDeadline(time.Now())
	})
	defer stop()
	var res response
	if err := c.in.SetWriteDeadline(deadline); err != nil {
		return res, err
	}
	if err := c.out.SetReadDeadline(deadline); err != nil {
		return res, err
	}
	if err := writeFrame(c.in, req); err != nil {
		return res, err
	}
	err := readFrame(c.r, maxFrame, &res)
	return res, err
}

// kill ends the child's whole process group, at once, and waits for it.
func (c *child) kill() {
	c.once.Do(func() {
		c.killed = true
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		c.in.Close()
		c.out.Close()
	})
	<-c.done
}

type death int

const (
	diedOther death = iota
	diedOfTime
	diedOfMemory
)

// death says what the child died of, waiting a moment for it to be dead: the memory bound when the runtime says it could
// not get memory, the CPU backstop when the kernel killed it for its CPU time.
func (c *child) death() death {
	select {
	case <-c.done:
	case <-time.After(time.Second):
		return diedOther
	}
	msg := c.stderr.String()
	for _, s := range []string{"out of memory", "cannot allocate memory", "newosproc", "pthread_create failed"} {
		if strings.Contains(msg, s) {
			return diedOfMemory
		}
	}
	var ws syscall.WaitStatus
	if st, ok := c.cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		ws = st
	}
	if ws.Signaled() && (ws.Signal() == syscall.SIGXCPU || ws.Signal() == syscall.SIGKILL && !c.killed) {
		return diedOfTime
	}
	return diedOther
}

// capped keeps the first max bytes written to it.
type capped struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (w *capped) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(b[:min(room, len(b))])
	}
	return len(b), nil
}

func (w *capped) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.TrimSpace(w.buf.String())
}
