package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jwt"

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

// TestUnknownKidsAreCheap: tokens naming made-up kids, many at once and one after another, cost at most
// one read of the keys per reload interval; the interval passed, one more.
func TestUnknownKidsAreCheap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.DB(t)
	box, _ := secret.NewBox(make([]byte, 32))
	ks := auth.NewKeyStore(db, box, 24*time.Hour, time.Hour)
	t0 := time.Now().Truncate(time.Second) // whole seconds: PostgreSQL rounds what it stores to microseconds
	var offset atomic.Int64
	ks.SetClock(func() time.Time { return t0.Add(time.Duration(offset.Load())) })
	tokens := auth.NewTokens(ks, "loopwork", "authenticated", time.Hour, nil)
	if _, _, err := tokens.Issue(ctx, auth.AccessClaims{UserID: uuid.New(), SessionID: uuid.New(), OrganizationID: uuid.New()}); err != nil {
		t.Fatal(err)
	}
	before := ks.Loads()
	forge := func() string {
		priv, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		key, _ := jwk.Import(priv)
		_ = key.Set(jwk.KeyIDKey, uuid.NewString())
		tok, _ := jwt.NewBuilder().Issuer("loopwork").Subject(uuid.NewString()).Expiration(time.Now().Add(time.Hour)).Build()
		signed, err := jwt.Sign(tok, jwt.WithKey(jwa.ES256(), key))
		if err != nil {
			t.Fatal(err)
		}
		return string(signed)
	}
	const n = 200
	forged := make([]string, n)
	for i := range forged {
		forged[i] = forge()
	}
	var wg sync.WaitGroup
	for _, raw := range forged {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := tokens.Verify(ctx, raw); !errors.Is(err, auth.ErrInvalidToken) {
				t.Errorf("a forged token: %v", err)
			}
		}()
	}
	wg.Wait()
	for _, raw := range forged[:50] {
		_, _ = tokens.Verify(ctx, raw)
	}
	if got := ks.Loads() - before; got > 1 {
		t.Fatalf("%d tokens with unknown kids read the keys %d times, want at most once per interval", n+50, got)
	}
	offset.Store(int64(11 * time.Second))
	for _, raw := range forged[:50] {
		_, _ = tokens.Verify(ctx, raw)
	}
	if got := ks.Loads() - before; got > 2 {
		t.Fatalf("after the interval: %d reads, want at most 2", got)
	}
}
