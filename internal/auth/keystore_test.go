package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/secret"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestAutomaticRotation walks a key store through a rotation on a simulated clock: the successor is
// published before it signs, takes over at the end of the term, and the old key stays published until
// its last token has expired.
func TestAutomaticRotation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.DB(t)
	key := make([]byte, 32)
	box, _ := secret.NewBox(key)
	const rotation, ttl = 24 * time.Hour, time.Hour
	ks := auth.NewKeyStore(db, box, rotation, ttl)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) { ks.SetClock(func() time.Time { return t0.Add(d) }) }
	kids := func() (signing string, published int) {
		t.Helper()
		if err := ks.Reload(ctx); err != nil {
			t.Fatal(err)
		}
		k, _ := ks.SigningKey(ctx)
		kid, _ := k.KeyID()
		set, _ := ks.PublicKeys(ctx)
		return kid, set.Len()
	}

	at(0)
	first, n := kids()
	if n != 1 {
		t.Fatalf("start: %d keys published", n)
	}
	at(rotation - ks.Lead()/2) // inside the lead window: the successor is published, not yet signing
	signing, n := kids()
	if signing != first || n != 2 {
		t.Fatalf("before the term ends: signing %s (first %s), %d published", signing, first, n)
	}
	// Entering the window late pushes the successor's start back, so it is still published a whole
	// lead before it signs. After that it signs; the first key still verifies its tokens.
	at(rotation + ks.Lead())
	second, n := kids()
	if second == first || n != 2 {
		t.Fatalf("after the term: signing %s, %d published", second, n)
	}
	at(rotation + ks.Lead() + ttl + 2*time.Minute) // every token of the first key has expired
	if signing, n := kids(); signing != second || n != 1 {
		t.Fatalf("after the old tokens expired: signing %s, %d published", signing, n)
	}
}

func TestPasswordHashing(t *testing.T) {
	t.Parallel()
	h, err := auth.HashPassword("s3cret pass")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := auth.VerifyPassword(h, "s3cret pass"); !ok || err != nil {
		t.Fatalf("right password: %v %v", ok, err)
	}
	if ok, _ := auth.VerifyPassword(h, "s3cret pasS"); ok {
		t.Fatal("wrong password accepted")
	}
	h2, _ := auth.HashPassword("s3cret pass")
	if h == h2 {
		t.Fatal("hashes are not salted")
	}
	if _, err := auth.VerifyPassword("$2a$10$notargon", "x"); err == nil {
		t.Fatal("a foreign hash format must be an error")
	}
}
