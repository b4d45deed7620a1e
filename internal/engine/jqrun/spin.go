package jqrun

import (
	"io"
	"runtime"
	"syscall"
	"time"
)

// spinFor is how long a reader keeps trying a child's pipe before it parks in the poller: a small program
// answers in tens of microseconds, and a wake-up from the poller on an idle CPU costs about as much again.
const spinFor = 50 * time.Microsecond

// spinReader reads a child's stdout, trying for spinFor before it waits in the poller (which keeps the
// pipe's deadline).
type spinReader struct{ c *child }

func (s spinReader) Read(p []byte) (int, error) {
	rc, err := s.c.out.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	until := time.Now().Add(spinFor)
	err = rc.Read(func(fd uintptr) bool {
		for {
			n, rerr = syscall.Read(int(fd), p)
			if rerr != syscall.EAGAIN {
				return true
			}
			if time.Now().After(until) {
				return false
			}
			runtime.Gosched()
		}
	})
	if err != nil {
		return 0, err
	}
	if rerr != nil {
		return 0, rerr
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}
