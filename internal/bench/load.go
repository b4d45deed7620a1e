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
	var lat []time.Duration
	var errs atomic.Int64
	deadline := time.Now().Add(duration)
	start := time.Now()
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			mine := make([]time.Duration, 0, 4096)
			for time.Now().Before(deadline) {
				took, err := do(c)
				if err != nil {
					errs.Add(1)
				}
				mine = append(mine, took)
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}(c)
	}
	wg.Wait()
	r := Result{Requests: len(lat), Errors: errs.Load(), Elapsed: time.Since(start), lat: lat}
	r.percentiles()
	return r
}

// Merge is the result of two runs taken as one: their calls together, over their times added up.
func (r Result) Merge(o Result) Result {
	m := Result{Requests: r.Requests + o.Requests, Errors: r.Errors + o.Errors, Elapsed: r.Elapsed + o.Elapsed,
		lat: append(append(make([]time.Duration, 0, len(r.lat)+len(o.lat)), r.lat...), o.lat...)}
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
