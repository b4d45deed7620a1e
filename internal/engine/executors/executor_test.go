package executors_test

import (
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// TestSetCheck: a registered type without an executor, an executor of an unregistered type and an
// executor of a type run outside are each named; a set that matches passes.
func TestSetCheck(t *testing.T) {
	t.Parallel()
	reg, err := tasks.New(tasks.Type{Name: "a"}, tasks.Type{Name: "b"}, tasks.Type{Name: "outside"})
	if err != nil {
		t.Fatal(err)
	}
	ex := executors.Unavailable("x", "test")
	if err := (executors.Set{"a": ex, "b": ex}).Check(reg, "outside"); err != nil {
		t.Fatalf("a matching set: %v", err)
	}
	for _, c := range []struct {
		set  executors.Set
		want []string
	}{
		{executors.Set{"a": ex}, []string{"lacks b"}},
		{executors.Set{"a": ex, "b": ex, "c": ex}, []string{"names c, which the registry does not hold"}},
		{executors.Set{"a": ex, "b": ex, "outside": ex}, []string{"outside is run by outside workers"}},
		{executors.Set{"b": ex, "z": ex}, []string{"lacks a and names z"}},
	} {
		err := c.set.Check(reg, "outside")
		if err == nil {
			t.Fatalf("%v passed", c.want)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not say %q", err, w)
			}
		}
	}
}

// TestWrappingKeepsKinds: the engine runs transform and condition ahead of a start and a recording
// executor inside it by their kinds, so a wrapper (the attempt's context, the metrics' counting) must
// not lose them.
func TestWrappingKeepsKinds(t *testing.T) {
	t.Parallel()
	records := executors.Mark(executors.Unavailable("r", "test"), executors.Records)
	set := executors.Set{"transform": executors.Transform(executors.JQ{}), "condition": executors.Condition(executors.JQ{}),
		"human_review": records, "delay": executors.Delay(time.Now)}.WithAttempts()
	want := map[string]executors.Kind{"transform": executors.Computes, "condition": executors.Computes,
		"human_review": executors.Records, "delay": executors.Anywhere}
	for name, k := range want {
		if got := executors.KindOf(set[name]); got != k {
			t.Errorf("%s: kind %d after wrapping, want %d", name, got, k)
		}
	}
}
