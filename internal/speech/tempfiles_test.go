package speech

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSweepTemp: the sweep removes the recordings and decoded directories of processes that are gone
// (once a minute old) and those an earlier process with this one's id left; it keeps the files of
// running processes, fresh ones, and every name that is not one of its own.
func TestSweepTemp(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone, me, parent := dead.Process.Pid, os.Getpid(), os.Getppid()
	if running(gone) {
		t.Skip("the id of the exited process was taken again")
	}
	dir := t.TempDir()
	old := time.Now().Add(-2 * time.Minute)
	put := func(name string, isDir bool, mod time.Time) {
		t.Helper()
		p := filepath.Join(dir, name)
		var err error
		if isDir {
			err = os.MkdirAll(filepath.Join(p, "sub"), 0o700)
			if err == nil {
				err = os.WriteFile(filepath.Join(p, "speech.wav"), []byte("RIFF"), 0o600)
			}
		} else {
			err = os.WriteFile(p, []byte("audio"), 0o600)
		}
		if err == nil {
			err = os.Chtimes(p, mod, mod)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	id := strconv.Itoa
	put("loopwork-audio-"+id(gone)+"-1", false, old)        // a killed server's upload: removed
	put("loopwork-speech-"+id(gone)+"-2", true, old)        // its decoded directory: removed
	put("loopwork-audio-"+id(gone)+"-3", false, time.Now()) // too fresh: kept
	put("loopwork-audio-"+id(me)+"-4", false, old)          // an earlier process with this id: removed
	put("loopwork-audio-"+id(me)+"-5", false, time.Now())   // this process's own: kept
	put("loopwork-audio-"+id(parent)+"-6", false, old)      // a running process's: kept
	put("loopwork-export-"+id(gone)+"-7", false, old)       // not a recording: kept
	put("loopwork-audio-12345", false, old)                 // no process id: kept
	put("other-"+id(gone), false, old)                      // not ours: kept

	n, err := SweepTemp(dir, time.Minute)
	if err != nil || n != 3 {
		t.Fatalf("removed %d, %v; want 3", n, err)
	}
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{"loopwork-audio-" + id(gone) + "-3", "loopwork-audio-" + id(me) + "-5", "loopwork-audio-" + id(parent) + "-6",
		"loopwork-export-" + id(gone) + "-7", "loopwork-audio-12345", "other-" + id(gone)}
	sort.Strings(want)
	if strings.Join(left, " ") != strings.Join(want, " ") {
		t.Fatalf("left %v, want %v", left, want)
	}
}
