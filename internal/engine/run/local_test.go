package run

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// TestLocalPlacesAreSharedBetweenOrganizations: one organization holds at most localShare of the
// places where claimed attempts wait; when all are taken, an organization that holds none still gets
// one, so its attempt joins the executors' fair queue instead of waiting behind the others' in River.
func TestLocalPlacesAreSharedBetweenOrganizations(t *testing.T) {
	l := newLocal()
	l.started = true
	a, b, c := uuid.New(), uuid.New(), uuid.New()
	for i := range localShare {
		if !l.take(a) {
			t.Fatalf("a was refused its place %d of %d", i+1, localShare)
		}
	}
	if l.take(a) {
		t.Fatal("a took more than its share of the places")
	}
	for range LocalSlots - localShare {
		if !l.take(b) {
			t.Fatal("b was refused a place that was free")
		}
	}
	if !l.take(c) {
		t.Fatal("c, holding none, was refused one place although a and b took them all")
	}
	if l.take(c) {
		t.Fatal("c took a second place beyond the ones there are")
	}
	// c's extra place counts: with two given back, one is free.
	l.release(a)
	l.release(a)
	if l.take(b) || !l.take(a) || l.take(a) {
		t.Fatal("the place free went to b, beyond its share, or not to a, or a took one more")
	}
	for _, org := range []uuid.UUID{a, b, c} {
		for l.by[org] > 0 {
			l.release(org)
		}
	}
	if l.held != 0 || len(l.by) != 0 {
		t.Fatalf("%d places and %d organizations left after all were given back", l.held, len(l.by))
	}
}

// TestSnoozesBackOff: a job snoozed again and again waits longer each time, up to eight seconds and a
// quarter, so that a large backlog is not fetched over and over.
func TestSnoozesBackOff(t *testing.T) {
	for snoozes, want := range map[int]time.Duration{0: 500 * time.Millisecond, 1: time.Second, 3: 4 * time.Second, 9: 8 * time.Second} {
		meta, _ := json.Marshal(map[string]int{"snoozes": snoozes})
		d := snoozeFor(&river.Job[taskArgs]{JobRow: &rivertype.JobRow{Metadata: meta}})
		if d < want || d > want+want/4 {
			t.Fatalf("after %d snoozes: %v, want %v to %v", snoozes, d, want, want+want/4)
		}
	}
}
