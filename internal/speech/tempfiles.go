package speech

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"time"
)

// A recording is kept in a temporary file while it is transcribed, and decoded into a temporary
// directory. Both are removed on every path while the server lives, but a server that is killed in the
// middle of a request leaves them behind; their names carry the process id, so that the next server to
// start on the machine can tell them from the files of servers still running (SweepTemp).
const (
	uploadPrefix = "loopwork-audio-"
	decodePrefix = "loopwork-speech-"
)

// started approximates when this process started: files named with its own id and older than this were
// left by an earlier process that had the same id (a restarted container's server is often process 1).
var started = time.Now()

// leftover matches the names of the temporary files of this package's patterns, capturing the process id.
var leftover = regexp.MustCompile(`^loopwork-(?:audio|speech)-([0-9]+)-`)

// UploadPattern is the os.CreateTemp pattern of a received recording.
func UploadPattern() string { return pattern(uploadPrefix) }

func pattern(prefix string) string { return prefix + strconv.Itoa(os.Getpid()) + "-*" }

// SweepTemp removes from dir the recordings and decoded files that servers which ended without
// cleaning up left behind: those of a process that no longer runs, untouched for at least minAge, and
// those of an earlier process with this one's id. Files of running servers are kept, whatever their
// age. It answers how many it removed; a file it cannot remove is skipped and reported in err.
func SweepTemp(dir string, minAge time.Duration) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	removed := 0
	var errs []error
	for _, e := range entries {
		m := leftover.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // gone meanwhile
		}
		mod := info.ModTime()
		stale := time.Since(mod) >= minAge && !running(pid)
		if pid == os.Getpid() {
			stale = mod.Before(started)
		}
		if !stale {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}

// running reports whether a process with the id exists (signal 0 checks without signalling; EPERM is
// a process of another user, which exists).
func running(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
