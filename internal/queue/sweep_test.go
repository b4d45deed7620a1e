package queue

import (
	"testing"
	"time"
)

// The pacer is the sweep loop's arithmetic: these cases are the promises of Sweep's comment.
func TestPacer(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sec := time.Second
	cases := []struct {
		name string
		run  func(p *pacer) []time.Duration
		want []time.Duration
	}{
		{"a new leader that finds nothing waits the whole idle time", func(p *pacer) []time.Duration {
			return []time.Duration{p.ran(at, Outcome{}, nil), p.ran(at, Outcome{}, nil)}
		}, []time.Duration{60 * sec, 60 * sec}},
		{"work found brings the next run to Every, then the wait doubles up to Idle", func(p *pacer) []time.Duration {
			var ws []time.Duration
			ws = append(ws, p.ran(at, Outcome{Found: true}, nil))
			for range 5 {
				ws = append(ws, p.ran(at, Outcome{}, nil))
			}
			return ws
		}, []time.Duration{2 * sec, 2 * sec, 4 * sec, 8 * sec, 16 * sec, 32 * sec}},
		{"a failed run is tried again after Every", func(p *pacer) []time.Duration {
			return []time.Duration{p.ran(at, Outcome{}, errTest)}
		}, []time.Duration{2 * sec}},
		{"a deadline seen cuts the wait short", func(p *pacer) []time.Duration {
			return []time.Duration{p.ran(at, Outcome{Next: at.Add(7 * sec)}, nil), p.ran(at, Outcome{Found: true, Next: at.Add(sec)}, nil)}
		}, []time.Duration{7 * sec, sec}},
		{"a deadline already passed does not make the loop spin", func(p *pacer) []time.Duration {
			return []time.Duration{p.ran(at, Outcome{Next: at.Add(-sec)}, nil)}
		}, []time.Duration{minWait}},
		{"a wake brings a far run to Every after the last and restarts the doubling", func(p *pacer) []time.Duration {
			p.ran(at, Outcome{}, nil)
			w := p.woken(at.Add(500*time.Millisecond), 59500*time.Millisecond)
			return []time.Duration{w, p.ran(at.Add(2*sec), Outcome{}, nil), p.ran(at.Add(6*sec), Outcome{}, nil)}
		}, []time.Duration{1500 * time.Millisecond, 2 * sec, 4 * sec}},
		{"a wake long after the last run runs at once; one before a nearer run leaves it", func(p *pacer) []time.Duration {
			p.ran(at, Outcome{}, nil)
			return []time.Duration{p.woken(at.Add(10*sec), 50*sec), p.woken(at.Add(sec), 300*time.Millisecond)}
		}, []time.Duration{0, 300 * time.Millisecond}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.run(newPacer(2*sec, time.Minute))
			if len(got) != len(c.want) {
				t.Fatalf("waits %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("waits %v, want %v", got, c.want)
				}
			}
		})
	}
}

type testError struct{}

func (testError) Error() string { return "test" }

var errTest error = testError{}

// TestDue: a run's Next is the earliest of the times it saw, and zero when it saw none.
func TestDue(t *testing.T) {
	t.Parallel()
	now := time.Now()
	later, sooner := now.Add(time.Minute), now.Add(time.Second)
	if o := Due(nil, &later, &sooner, nil); !o.Next.Equal(sooner) || o.Found {
		t.Fatalf("Due gave %+v, want Next %v", o, sooner)
	}
	if o := Due(nil, nil); !o.Next.IsZero() {
		t.Fatalf("Due of nothing gave %+v", o)
	}
}
