package credits_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestLastCreditsAreSpentOnce: 40 concurrent consumers race for 7 credits; exactly 7 win, and the
// balance ends at zero.
func TestLastCreditsAreSpentOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.DB(t)
	var org uuid.UUID
	if err := db.Get(&org, `INSERT INTO organizations (name) VALUES ('c') RETURNING id`); err != nil {
		t.Fatal(err)
	}
	if err := credits.Grant(ctx, db, org, 7); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, refused := 0, 0
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := dbx.WithTx(ctx, db, func(tx *sqlx.Tx) error {
				if err := credits.Reserve(ctx, tx, org, 1); err != nil {
					return err
				}
				_, err := credits.Record(ctx, tx, credits.Usage{OrganizationID: org, ProductID: credits.JobSubmissionProduct, Amount: 1, CreatedBy: "test"})
				return err
			})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case errors.Is(err, credits.ErrNoCredits):
				refused++
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if won != 7 || refused != 33 {
		t.Fatalf("won %d, refused %d; want 7 and 33", won, refused)
	}
	b, err := credits.Get(ctx, db, org)
	if err != nil || b.Granted != 7 || b.Consumed != 7 || b.Remaining() != 0 {
		t.Fatalf("balance %+v %v", b, err)
	}
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM usage_records WHERE organization_id = $1`, org); err != nil || n != 7 {
		t.Fatalf("usage records: %d %v", n, err)
	}
}
