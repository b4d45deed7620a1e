package bench

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// The soak's judge on made-up runs: 8 minutes, a sample every 5 s, the first 48 s a warm-up.
const (
	testRun   = 8 * time.Minute
	testEvery = 5 * time.Second
	testWarm  = 48 * time.Second
)

// samples makes a sample every testEvery from f, which gives the measures at a time.
func samples(f func(at time.Duration, i int) (rssMB float64, goroutines, conns int)) []SoakSample {
	var s []SoakSample
	for i, at := 0, time.Duration(0); at <= testRun; i, at = i+1, at+testEvery {
		rss, g, c := f(at, i)
		s = append(s, SoakSample{At: at, RSS: int64(rss * (1 << 20)), Goroutines: g, Conns: c})
	}
	return s
}

// calls makes a run's calls at rate(t) per second, each taking took(t, n).
func calls(rate func(t time.Duration) float64, took func(t time.Duration, n int) time.Duration) Result {
	var cs []call
	n := 0
	for t := time.Duration(0); t < testRun; {
		cs = append(cs, call{end: t, took: took(t, n)})
		n++
		t += time.Duration(float64(time.Second) / rate(t))
	}
	return result(cs, 0, testRun)
}

// steady is flat traffic: 60 requests/s, 2% of them slow.
func steady() Result {
	return calls(func(time.Duration) float64 { return 60 }, func(_ time.Duration, n int) time.Duration {
		if n%50 == 0 {
			return 240 * time.Millisecond
		}
		return 25 * time.Millisecond
	})
}

// noisy is flat measures with the swings of a busy server: goroutines between 140 and 270, memory
// ±8 MB about 150 MB, connections 18 to 20.
func noisy(seed uint64) func(time.Duration, int) (float64, int, int) {
	r := rand.New(rand.NewPCG(seed, 1))
	return func(time.Duration, int) (float64, int, int) {
		return 150 + 16*(r.Float64()-0.5), 140 + r.IntN(131), 18 + r.IntN(3)
	}
}

func TestSoakJudgePassesFlatRunsWithBusySamples(t *testing.T) {
	t.Parallel()
	for seed := range uint64(20) {
		base := noisy(seed)
		s := samples(func(at time.Duration, i int) (float64, int, int) {
			rss, g, c := base(at, i)
			switch i {
			case 30: // a burst of work in the middle
				return rss + 60, g + 300, c + 6
			case 94, 95, 96: // and one at the very end, as the old judge's peak of three saw
				return rss + 40, 270, 25
			}
			return rss, g, c
		})
		if v := JudgeSoak(steady(), testWarm, s); len(v.Failures) > 0 {
			t.Fatalf("seed %d: a flat run with busy samples failed: %v\n%v", seed, v.Failures, v.Trends)
		}
	}
}

func TestSoakJudgeFailsASlowLeak(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, want string
		leak       func(at time.Duration) (rssMB float64, goroutines, conns int)
	}{
		// One goroutine every 5 s: 96 in 8 minutes, under swings of 130.
		{"goroutines", "goroutines", func(at time.Duration) (float64, int, int) { return 0, int(at / (5 * time.Second)), 0 }},
		// 8 MB a minute: 64 MB, under swings of 16.
		{"memory", "rss", func(at time.Duration) (float64, int, int) { return 8 * at.Minutes(), 0, 0 }},
		// A connection a minute: 8.
		{"connections", "connections", func(at time.Duration) (float64, int, int) { return 0, 0, int(at / time.Minute) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for seed := range uint64(20) {
				base := noisy(seed)
				s := samples(func(at time.Duration, i int) (float64, int, int) {
					rss, g, n := base(at, i)
					lr, lg, ln := c.leak(at)
					return rss + lr, g + lg, n + ln
				})
				v := JudgeSoak(steady(), testWarm, s)
				if len(v.Failures) != 1 || !strings.Contains(v.Failures[0], c.want) {
					t.Fatalf("seed %d: a slow leak of %s gave %v\n%v", seed, c.name, v.Failures, v.Trends)
				}
			}
		})
	}
}

func TestSoakJudgeFailsFallingThroughputAndRisingLatency(t *testing.T) {
	t.Parallel()
	flat := samples(noisy(1))
	falling := calls(func(t time.Duration) float64 { return 80 - 30*t.Seconds()/testRun.Seconds() },
		func(time.Duration, int) time.Duration { return 25 * time.Millisecond })
	if v := JudgeSoak(falling, testWarm, flat); len(v.Failures) != 1 || !strings.Contains(v.Failures[0], "throughput fell") {
		t.Fatalf("80 → 50 requests/s: %v", v.Failures)
	}
	slower := calls(func(time.Duration) float64 { return 60 }, func(t time.Duration, n int) time.Duration {
		if n%50 == 0 {
			return time.Duration(240+300*t.Seconds()/testRun.Seconds()) * time.Millisecond
		}
		return 25 * time.Millisecond
	})
	if v := JudgeSoak(slower, testWarm, flat); len(v.Failures) != 1 || !strings.Contains(v.Failures[0], "p99 rose") {
		t.Fatalf("p99 240 → 540 ms: %v", v.Failures)
	}
	// A dip well inside the run, or throughput a tenth lower at the end, is no failure.
	dip := calls(func(t time.Duration) float64 {
		if t > 3*time.Minute && t < 4*time.Minute {
			return 20
		}
		return 60 - 6*t.Seconds()/testRun.Seconds()
	}, func(time.Duration, int) time.Duration { return 25 * time.Millisecond })
	if v := JudgeSoak(dip, testWarm, flat); len(v.Failures) > 0 {
		t.Fatalf("a dip mid-run and 10%% less at the end: %v", v.Failures)
	}
}

func TestSoakJudgeNeedsSamples(t *testing.T) {
	t.Parallel()
	few := []SoakSample{{At: time.Minute, RSS: 1, Goroutines: 1, Conns: 1}}
	if v := JudgeSoak(steady(), testWarm, few); len(v.Failures) != 1 || !strings.Contains(v.Failures[0], "samples") {
		t.Fatalf("one sample: %v", v.Failures)
	}
}

func TestResultWindows(t *testing.T) {
	t.Parallel()
	r := steady()
	f := SoakFifths(r, testWarm)
	total := 0
	for _, w := range f {
		total += w.Requests
		if w.PerSecond() < 59 || w.PerSecond() > 61 || w.P99 != 240*time.Millisecond {
			t.Fatalf("a window of a steady run: %d requests, %.0f/s, p99 %s", w.Requests, w.PerSecond(), w.P99)
		}
	}
	if want := r.Window(testWarm, testRun).Requests; total != want {
		t.Fatalf("the fifths hold %d requests, the run after its warm-up %d", total, want)
	}
	m := r.Merge(r)
	if w := m.Window(testRun, 2*testRun); w.Requests != r.Requests {
		t.Fatalf("the second run of a merge holds %d requests, want %d", w.Requests, r.Requests)
	}
}
