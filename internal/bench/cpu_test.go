package bench_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ticks is the kernel's clock tick, the unit of /proc's CPU times (USER_HZ: 100 on every Linux this
// runs on; reading it would take cgo's sysconf).
const ticks = 100.0

// cpuReading is where the machine's CPU time had gone by a moment, from /proc: busy and idle in all,
// this process (the server, its engine and the bench's clients), its children (the jq pool), and each
// PostgreSQL process. Comparing two readings tells where a load's time went on this machine.
type cpuReading struct {
	at               time.Time
	busy, idle, self float64 // seconds
	children, pg     map[int]float64
}

func readCPU() cpuReading {
	r := cpuReading{at: time.Now(), children: map[int]float64{}, pg: map[int]float64{}}
	if raw, err := os.ReadFile("/proc/stat"); err == nil {
		line, _, _ := strings.Cut(string(raw), "\n")
		for i, f := range strings.Fields(line)[1:] {
			v, _ := strconv.ParseFloat(f, 64)
			switch i {
			case 3, 4: // idle, iowait
				r.idle += v / ticks
			case 0, 1, 2, 5, 6, 7: // user, nice, system, irq, softirq, steal
				r.busy += v / ticks
			}
		}
	}
	self := os.Getpid()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, _ := strconv.Atoi(filepath.Base(d))
		comm, ppid, cpu, ok := procStat(d)
		switch {
		case !ok:
		case pid == self:
			r.self = cpu
		case ppid == self:
			r.children[pid] = cpu
		case comm == "postgres":
			r.pg[pid] = cpu
		}
	}
	return r
}

// procStat reads a process's name, parent and CPU time (user and system) from its stat file.
func procStat(dir string) (comm string, ppid int, cpu float64, ok bool) {
	raw, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return "", 0, 0, false
	}
	s := string(raw)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", 0, 0, false
	}
	f := strings.Fields(s[end+1:]) // state, ppid, …: utime and stime are fields 14 and 15 of the whole line
	if len(f) < 13 {
		return "", 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return s[open+1 : end], ppid, (u + st) / ticks, true
}

// cpuWatch samples /proc while a load runs, so that processes that start and end within it (pgbench's
// connections, each a PostgreSQL process of its own) count up to their last sample, within 100 ms of
// their end, instead of being lost.
type cpuWatch struct {
	start cpuReading
	mu    sync.Mutex
	last  cpuReading
	stop  chan struct{}
	done  chan struct{}
}

func watchCPU() *cpuWatch {
	w := &cpuWatch{start: readCPU(), stop: make(chan struct{}), done: make(chan struct{})}
	w.last = w.start
	w.last.children, w.last.pg = maps.Clone(w.start.children), maps.Clone(w.start.pg) // start stays as read
	go func() {
		defer close(w.done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
				w.fold(readCPU())
			}
		}
	}()
	return w
}

// fold takes a sample: the machine's and this process's figures, and every process's latest CPU time,
// keeping those that have ended at their last.
func (w *cpuWatch) fold(r cpuReading) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for pid, v := range r.children {
		w.last.children[pid] = v
	}
	for pid, v := range r.pg {
		w.last.pg[pid] = v
	}
	w.last.at, w.last.busy, w.last.idle, w.last.self = r.at, r.busy, r.idle, r.self
}

// split ends the watch and says where the machine's time went during it (see cpuSplit).
func (w *cpuWatch) split() string {
	close(w.stop)
	<-w.done
	w.fold(readCPU())
	return cpuSplit(w.start, w.last)
}

// since sums CPU seconds per process between two readings: a process started meanwhile counts whole.
func since(before, after map[int]float64) float64 {
	var t float64
	for pid, v := range after {
		t += v - before[pid]
	}
	return t
}

// cpuSplit says, in cores (CPU seconds per second), where the machine's time went between two readings.
func cpuSplit(before, after cpuReading) string {
	wall := after.at.Sub(before.at).Seconds()
	busy, idle := after.busy-before.busy, after.idle-before.idle
	self, kids, pg := after.self-before.self, since(before.children, after.children), since(before.pg, after.pg)
	return fmt.Sprintf("busy %.2f cores: this process (server, engine, clients) %.2f, its children (the jq pool; pgbench) %.2f, PostgreSQL %.2f, the rest %.2f; idle %.2f",
		busy/wall, self/wall, kids/wall, pg/wall, (busy-self-kids-pg)/wall, idle/wall)
}
