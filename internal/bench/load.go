package bench

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Result is what one load run measured.
type Result struct {
	Requests int
	Errors   int64
	Elapsed  time.Duration
	P50, P90 time.Duration
	P99, Max time.Duration
	lat      []time.Duration // every call's, sorted
	// calls are every call's end (since the run's start), duration and outcome, in no order: what
	// Window reads to tell one part of a long run from another.
	calls []call
}

type call struct {
	end, took time.Duration
	failed    bool
}

// PerSecond is the throughput of successful requests.
func (r Result) PerSecond() float64 {
	return float64(r.Requests-int(r.Errors)) / r.Elapsed.Seconds()
}

// Run calls do from `clients` goroutines until `duration` has passed, and reports the latency
// distribution of the calls. An error counts against the run but keeps the client going.
func Run(clients int, duration time.Duration, do func(client int) error) Result {
	return RunTimed(clients, duration, func(c int) (time.Duration, error) {
		t := time.Now()
		err := do(c)
		return time.Since(t), err
	})
}

// RunTimed is Run for calls that time themselves: do answers how long the part being measured took,
// so that what a client does between two measured requests (labeling the job it leased) stays out of
// the latencies. It still takes its share of the machine and of the duration, as it would in use.
func RunTimed(clients int, duration time.Duration, do func(client int) (time.Duration, error)) Result {
	var mu sync.Mutex
	var calls []call
	var errs atomic.Int64
	deadline := time.Now().Add(duration)
	start := time.Now()
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			mine := make([]call, 0, 4096)
			for time.Now().Before(deadline) {
				took, err := do(c)
				if err != nil {
					errs.Add(1)
				}
				mine = append(mine, call{end: time.Since(start), took: took, failed: err != nil})
			}
			mu.Lock()
			calls = append(calls, mine...)
			mu.Unlock()
		}(c)
	}
	wg.Wait()
	return result(calls, errs.Load(), time.Since(start))
}

// result is the Result of calls over elapsed.
func result(calls []call, errs int64, elapsed time.Duration) Result {
	lat := make([]time.Duration, len(calls))
	for i, c := range calls {
		lat[i] = c.took
	}
	r := Result{Requests: len(calls), Errors: errs, Elapsed: elapsed, lat: lat, calls: calls}
	r.percentiles()
	return r
}

// Window is the part of the run whose calls ended in [from, to): their count, failures and
// percentiles over to-from, as a Result of its own.
func (r Result) Window(from, to time.Duration) Result {
	var in []call
	var errs int64
	for _, c := range r.calls {
		if c.end >= from && c.end < to {
			in = append(in, c)
			if c.failed {
				errs++
			}
		}
	}
	return result(in, errs, to-from)
}

// Merge is the result of two runs taken as one: their calls together, over their times added up.
func (r Result) Merge(o Result) Result {
	m := Result{Requests: r.Requests + o.Requests, Errors: r.Errors + o.Errors, Elapsed: r.Elapsed + o.Elapsed,
		lat: append(append(make([]time.Duration, 0, len(r.lat)+len(o.lat)), r.lat...), o.lat...)}
	// The second run's calls follow the first's.
	m.calls = append(make([]call, 0, len(r.calls)+len(o.calls)), r.calls...)
	for _, c := range o.calls {
		c.end += r.Elapsed
		m.calls = append(m.calls, c)
	}
	m.percentiles()
	return m
}

func (r *Result) percentiles() {
	if len(r.lat) == 0 {
		return
	}
	sort.Slice(r.lat, func(i, j int) bool { return r.lat[i] < r.lat[j] })
	pct := func(p float64) time.Duration { return r.lat[int(p*float64(len(r.lat)-1))] }
	r.P50, r.P90, r.P99, r.Max = pct(0.50), pct(0.90), pct(0.99), r.lat[len(r.lat)-1]
}

// Ms renders a duration in milliseconds for reports.
func Ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
