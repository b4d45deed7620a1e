package jqrun

import (
	"os"
	"path/filepath"
	"sync"
)

var shared struct {
	once sync.Once
	pool *Pool
	err  error
}

// Shared is a pool with the default configuration, started on first use, for callers given none (tests
// that build executors or an engine on their own).
func Shared() (*Pool, error) {
	shared.once.Do(func() { shared.pool, shared.err = New(Config{}) })
	return shared.pool, shared.err
}

// executable is the path the children are started from: the running executable, found through /proc, or,
// where /proc is not mounted (a bare chroot), the absolute path the process was started by.
func executable() (string, error) {
	exe, err := os.Executable()
	if err == nil {
		return exe, nil
	}
	if filepath.IsAbs(os.Args[0]) {
		if _, statErr := os.Stat(os.Args[0]); statErr == nil {
			return os.Args[0], nil
		}
	}
	return "", err
}
