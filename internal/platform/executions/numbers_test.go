package executions_test

import (
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestRunNumbersTakenInBlocks: numbers taken before a start's transaction are distinct under
// concurrency and grow in the order they are taken; a start that takes its number inside its
// transaction (as /api's do) still comes after every number handed out, and a flow started now and then
// takes one number at a time, so a pause leaves no gap behind.
func TestRunNumbersTakenInBlocks(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	grant(t, env, org, 10)
	flow := testkit.NewFlowSeenBy(t, user, waitDef, platformapi.Organization)

	const takers, each = 8, 25
	var mu sync.Mutex
	var all []int
	var wg sync.WaitGroup
	for range takers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := 0
			for range each {
				n, err := run.TakeRunNumber(ctx, env.DB, flow)
				if err != nil {
					t.Error(err)
					return
				}
				if n <= last {
					t.Errorf("took %d after %d", n, last)
				}
				last = n
				mu.Lock()
				all = append(all, n)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Ints(all)
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("run number %d taken twice", all[i])
		}
	}
	var counter int
	if err := env.DB.Get(&counter, `SELECT executions_started FROM flows WHERE id = $1`, flow); err != nil {
		t.Fatal(err)
	}
	if len(all) != takers*each || all[0] != 1 || all[len(all)-1] > counter {
		t.Fatalf("took %d numbers from %d to %d with the counter at %d", len(all), all[0], all[len(all)-1], counter)
	}
	x := start(t, user, flow, map[string]any{}).Id
	if n := runNumber(t, user, x); n != counter+1 {
		t.Fatalf("an /api start after the blocks got %d; want %d", n, counter+1)
	}

	// A pause: the next number is taken alone and follows the last one given.
	quiet := testkit.NewFlowSeenBy(t, user, waitDef, platformapi.Organization)
	first, err := run.TakeRunNumber(ctx, env.DB, quiet)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	second, err := run.TakeRunNumber(ctx, env.DB, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if y := start(t, user, quiet, map[string]any{}).Id; first != 1 || second != 2 || runNumber(t, user, y) != 3 {
		t.Fatalf("a quiet flow was numbered %d, %d, then %d; want 1, 2, 3", first, second, runNumber(t, user, y))
	}
	if n, err := run.TakeRunNumber(ctx, env.DB, uuid.New()); err != nil || n != 0 {
		t.Fatalf("a number of a flow that does not exist: %d, %v", n, err)
	}
}
