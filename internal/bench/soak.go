package bench

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// A soak (make soak) runs steady traffic against one server for a long time and judges whether the
// server holds: whether throughput and latency at the end are what they were at the start, and whether
// memory, goroutines and database connections grow. The judging is here, in pure functions, so that
// make test checks it on series made up for the purpose; BenchmarkSoak feeds it a real run.
//
// Comparing the peak of a few samples at the start with a few at the end failed a soak that was fine:
// goroutines swing between 140 and 270 with the requests in flight, and three busy samples made a
// leak of nothing. Each measure is now judged by its trend over every sample after the warm-up, a line
// fitted robustly (Theil–Sen: the median of the slopes between all pairs of samples, which a few busy
// samples do not move), against a margin plus twice the noise of the fit itself (its standard error:
// a one-sided test at about 98% on top of the margin), so a measure that swings widely needs a clearer
// rise to fail, and a steady slow leak fails. Sampling often (every 5 s) keeps that noise small.

// SoakSample is one look at the server: when (since the run began) and what it held.
type SoakSample struct {
	At         time.Duration
	RSS        int64
	Goroutines int
	Conns      int
}

// The soak's thresholds. The margins are what a server that does not leak may still add over a run:
// memory, the collector's headroom as the heap settles and some growth with the data; goroutines,
// their number moving with 16 clients' requests in flight; connections, the pool (25) reaching a little
// further into its bound. minRateRatio and maxP99Ratio are issue 28's: after the warm-up, the last
// fifth of the run must serve at least 85% of the first fifth's requests per second, with a p99 at
// most 1.5 times the first fifth's.
const (
	rssMarginBytes    = 16 << 20
	rssMarginShare    = 0.15
	goroutineMargin   = 32
	connMargin        = 2
	noiseAllowance    = 2
	minRateRatio      = 0.85
	maxP99Ratio       = 1.5
	minTrendSamples   = 10
	soakWindowsInARun = 5
)

// Trend is a measure's line over the samples after the warm-up.
type Trend struct {
	Name string
	// Start and End are the fitted line's values at the first and the last sample; Growth is End-Start.
	Start, End, Growth float64
	// Noise is the standard error of Growth, from the samples' scatter about the line.
	Noise float64
	// Allowed is the most Growth may be: the measure's margin and noiseAllowance times Noise.
	Allowed float64
}

// OK reports whether the measure held.
func (t Trend) OK() bool { return t.Growth <= t.Allowed }

func (t Trend) String() string {
	return fmt.Sprintf("%s %.0f → %.0f (%+.0f, allowed %+.0f, noise %.0f)", t.Name, t.Start, t.End, t.Growth, t.Allowed, t.Noise)
}

// FitTrend fits the line through (ts, ys), robustly, and the growth it allows: margin(start).
func FitTrend(name string, ts, ys []float64, margin func(start float64) float64) Trend {
	slope, intercept := theilSen(ts, ys)
	first, last := slices.Min(ts), slices.Max(ts)
	t := Trend{Name: name, Start: intercept + slope*first, End: intercept + slope*last}
	t.Growth = t.End - t.Start
	// The standard error of a fitted slope is σ/sqrt(Σ(t-t̄)²); times the span, the growth's. σ is
	// estimated from the residuals' median absolute deviation, which busy samples do not inflate.
	res := make([]float64, len(ts))
	for i := range ts {
		res[i] = ys[i] - (intercept + slope*ts[i])
	}
	sigma := 1.4826 * mad(res)
	var mean, ss float64
	for _, x := range ts {
		mean += x / float64(len(ts))
	}
	for _, x := range ts {
		ss += (x - mean) * (x - mean)
	}
	if ss > 0 {
		t.Noise = sigma / math.Sqrt(ss) * (last - first)
	}
	t.Allowed = margin(t.Start) + noiseAllowance*t.Noise
	return t
}

// theilSen is the median of the slopes between every two points with different ts, and the median
// of ys less that slope times ts.
func theilSen(ts, ys []float64) (slope, intercept float64) {
	var slopes []float64
	for i := range ts {
		for j := i + 1; j < len(ts); j++ {
			if ts[j] != ts[i] {
				slopes = append(slopes, (ys[j]-ys[i])/(ts[j]-ts[i]))
			}
		}
	}
	if len(slopes) > 0 {
		slope = median(slopes)
	}
	rest := make([]float64, len(ts))
	for i := range ts {
		rest[i] = ys[i] - slope*ts[i]
	}
	return slope, median(rest)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// mad is the median absolute deviation from the median.
func mad(xs []float64) float64 {
	m := median(xs)
	d := make([]float64, len(xs))
	for i, x := range xs {
		d[i] = math.Abs(x - m)
	}
	return median(d)
}

// SoakVerdict is a soak's judgement: the run's fifths after the warm-up, the measures' trends, and
// what failed (nothing when the server held).
type SoakVerdict struct {
	Fifths   []Result
	Trends   []Trend
	Failures []string
}

// SoakFifths splits the run after warm into five windows of equal length.
func SoakFifths(r Result, warm time.Duration) []Result {
	step := (r.Elapsed - warm) / soakWindowsInARun
	w := make([]Result, soakWindowsInARun)
	for i := range w {
		w[i] = r.Window(warm+time.Duration(i)*step, warm+time.Duration(i+1)*step)
	}
	return w
}

// JudgeSoak judges a run: r, the traffic's calls, and samples, the server's, both timed from the
// start of the traffic; what came before warm is left out.
func JudgeSoak(r Result, warm time.Duration, samples []SoakSample) SoakVerdict {
	var v SoakVerdict
	v.Fifths = SoakFifths(r, warm)
	first, last := v.Fifths[0], v.Fifths[len(v.Fifths)-1]
	if first.Requests == 0 || last.Requests == 0 {
		v.Failures = append(v.Failures, fmt.Sprintf("no requests in the first or the last fifth (%d, %d)", first.Requests, last.Requests))
	} else {
		if last.PerSecond() < minRateRatio*first.PerSecond() {
			v.Failures = append(v.Failures, fmt.Sprintf("throughput fell from %.0f to %.0f requests/s (below %.0f%%)",
				first.PerSecond(), last.PerSecond(), 100*minRateRatio))
		}
		if float64(last.P99) > maxP99Ratio*float64(first.P99) {
			v.Failures = append(v.Failures, fmt.Sprintf("p99 rose from %s to %s (over %.1f×)", first.P99, last.P99, maxP99Ratio))
		}
	}
	var ts, rss, gor, conns []float64
	for _, s := range samples {
		if s.At < warm {
			continue
		}
		if s.Goroutines < 0 {
			v.Failures = append(v.Failures, fmt.Sprintf("the server's metrics gave no go_goroutines at %s", s.At))
			return v
		}
		ts = append(ts, s.At.Minutes())
		rss = append(rss, float64(s.RSS)/(1<<20))
		gor = append(gor, float64(s.Goroutines))
		conns = append(conns, float64(s.Conns))
	}
	if len(ts) < minTrendSamples {
		v.Failures = append(v.Failures, fmt.Sprintf("only %d samples after the warm-up: run longer or sample more often", len(ts)))
		return v
	}
	v.Trends = []Trend{
		FitTrend("rss MB", ts, rss, func(start float64) float64 { return rssMarginShare*start + rssMarginBytes/(1<<20) }),
		FitTrend("goroutines", ts, gor, func(float64) float64 { return goroutineMargin }),
		FitTrend("connections", ts, conns, func(float64) float64 { return connMargin }),
	}
	for _, t := range v.Trends {
		if !t.OK() {
			v.Failures = append(v.Failures, "grew: "+t.String())
		}
	}
	return v
}
