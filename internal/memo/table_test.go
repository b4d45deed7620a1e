package memo

import (
	"errors"
	"testing"
	"time"
)

// counter loads a value and counts the loads.
type counter struct{ loads int }

func (c *counter) load(v string) func() (string, error) {
	return func() (string, error) { c.loads++; return v, nil }
}

func TestTableMemoisesOnlyWhileLive(t *testing.T) {
	bus := NewBus()
	tab := NewTable[string, string](bus, time.Minute, 10)
	var c counter
	for i := 0; i < 3; i++ {
		if v, err := tab.Load("k", c.load("v")); v != "v" || err != nil {
			t.Fatalf("load: %q %v", v, err)
		}
	}
	if c.loads != 3 || tab.len() != 0 {
		t.Fatalf("not listening: %d loads, %d kept; want 3 and 0", c.loads, tab.len())
	}
	bus.setLive(true)
	for i := 0; i < 3; i++ {
		_, _ = tab.Load("k", c.load("v"))
	}
	if c.loads != 4 {
		t.Fatalf("live: %d loads, want 4 (one more)", c.loads)
	}
	bus.setLive(false)
	_, _ = tab.Load("k", c.load("v"))
	if c.loads != 5 {
		t.Fatalf("after losing the connection: %d loads, want 5", c.loads)
	}
	bus.setLive(true)
	_, _ = tab.Load("k", c.load("v"))
	if c.loads != 6 {
		t.Fatalf("after reconnecting: %d loads, want 6 (what was kept before is forgotten)", c.loads)
	}
}

func TestTableForgetsOnInvalidate(t *testing.T) {
	bus := NewBus()
	bus.setLive(true)
	tab := NewTable[string, string](bus, time.Minute, 10)
	var c counter
	_, _ = tab.Load("a", c.load("1"))
	_, _ = tab.Load("b", c.load("1"))
	bus.Invalidate()
	if v, _ := tab.Load("a", c.load("2")); v != "2" || c.loads != 3 {
		t.Fatalf("after a change: %q after %d loads, want the new value after 3", v, c.loads)
	}
	if tab.len() != 1 {
		t.Fatalf("%d kept, want only the one loaded since", tab.len())
	}
}

// A change heard while a load ran may have happened after the load read the row: the value is
// answered but not kept.
func TestTableDropsAValueLoadedAcrossAChange(t *testing.T) {
	bus := NewBus()
	bus.setLive(true)
	tab := NewTable[string, string](bus, time.Minute, 10)
	v, _ := tab.Load("k", func() (string, error) { bus.Invalidate(); return "old", nil })
	if v != "old" || tab.len() != 0 {
		t.Fatalf("got %q with %d kept; want the value, not kept", v, tab.len())
	}
	var c counter
	if v, _ := tab.Load("k", c.load("new")); v != "new" || c.loads != 1 {
		t.Fatalf("next load: %q", v)
	}
}

func TestTableKeepsNoErrorsAndHonoursTTLAndSize(t *testing.T) {
	bus := NewBus()
	bus.setLive(true)
	tab := NewTable[int, string](bus, 20*time.Millisecond, 3)
	boom := errors.New("boom")
	calls := 0
	for i := 0; i < 2; i++ {
		if _, err := tab.Load(1, func() (string, error) { calls++; return "", boom }); !errors.Is(err, boom) {
			t.Fatalf("error not passed on: %v", err)
		}
	}
	if calls != 2 {
		t.Fatalf("an error was kept: %d calls", calls)
	}
	var c counter
	_, _ = tab.Load(2, c.load("x"))
	time.Sleep(30 * time.Millisecond)
	_, _ = tab.Load(2, c.load("x"))
	if c.loads != 2 {
		t.Fatalf("a value outlived its ttl: %d loads", c.loads)
	}
	for k := 10; k < 14; k++ {
		_, _ = tab.Load(k, c.load("x"))
	}
	if n := tab.len(); n > 3 {
		t.Fatalf("%d kept, max 3", n)
	}
}
