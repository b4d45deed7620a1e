package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/oklog/ulid/v2"

	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/secret"
)

// KeyStore holds the ES256 signing keys every replica shares through the database. A new key is
// published some time before it starts signing, so verifiers that cache the JWKS learn it in time, and
// an old key stays published until the last token it signed has expired.
type KeyStore struct {
	db       *sqlx.DB
	box      *secret.Box
	rotation time.Duration // how long a key signs
	tokenTTL time.Duration // how long its tokens live
	lead     time.Duration // how long a key is published before it signs
	now      func() time.Time

	mu       sync.RWMutex
	signing  jwk.Key
	public   jwk.Set
	loadedAt time.Time

	// loading lets one caller at a time read the keys; the others wait for its result instead of
	// each reading them again.
	loading sync.Mutex
	loads   atomic.Int64 // reads of the keys so far
	// unknownAt is when a token naming a kid this replica did not hold last made it read the keys.
	unknownAt time.Time
}

// keyCacheTTL bounds how stale this replica's view of the keys may get.
const keyCacheTTL = time.Minute

// keyReloadInterval is how often a token naming a kid this replica does not hold may cause the keys to
// be read again. Anyone can send a token with a made-up kid; without the bound, each such request
// would cost a database round trip.
const keyReloadInterval = 10 * time.Second

// NewKeyStore returns a key store; keys are created on first use.
func NewKeyStore(db *sqlx.DB, box *secret.Box, rotation, tokenTTL time.Duration) *KeyStore {
	lead := 10 * time.Minute
	if rotation/4 < lead {
		lead = rotation / 4
	}
	return &KeyStore{db: db, box: box, rotation: rotation, tokenTTL: tokenTTL, lead: lead, now: time.Now}
}

type keyRow struct {
	Kid         string     `db:"kid"`
	PrivateKey  []byte     `db:"private_key"`
	PublicJWK   []byte     `db:"public_jwk"`
	ActivatedAt time.Time  `db:"activated_at"`
	RetireAt    *time.Time `db:"retire_at"`
}

// SigningKey returns the key that signs new tokens now.
func (k *KeyStore) SigningKey(ctx context.Context) (jwk.Key, error) {
	if err := k.refresh(ctx, false); err != nil {
		return nil, err
	}
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.signing, nil
}

// PublicKeys returns the published key set (current, upcoming and not yet retired keys).
func (k *KeyStore) PublicKeys(ctx context.Context) (jwk.Set, error) {
	if err := k.refresh(ctx, false); err != nil {
		return nil, err
	}
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.public, nil
}

// Reload reads the keys again for a token naming a kid this replica has not seen yet, unless such a
// token already made it read them less than keyReloadInterval ago. A kid met for the first time since
// (a key another replica just rotated in) is found at once; made-up kids cost no more than one read
// per interval, and concurrent callers share that read.
func (k *KeyStore) Reload(ctx context.Context) error {
	k.loading.Lock()
	defer k.loading.Unlock()
	now := k.now()
	k.mu.Lock()
	recent := !k.unknownAt.IsZero() && now.Sub(k.unknownAt) < keyReloadInterval && k.signing != nil
	if !recent {
		k.unknownAt = now
	}
	k.mu.Unlock()
	if recent {
		return nil
	}
	return k.load(ctx)
}

// Rotate publishes a new key that signs from now on; the current one keeps verifying its tokens.
func (k *KeyStore) Rotate(ctx context.Context) error {
	err := dbx.WithTx(ctx, k.db, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('loopwork signing keys'))`); err != nil {
			return err
		}
		return k.insertKey(ctx, tx, k.now())
	})
	if err != nil {
		return err
	}
	return k.refresh(ctx, true)
}

func (k *KeyStore) refresh(ctx context.Context, force bool) error {
	if force {
		return k.refreshOlderThan(ctx, 0)
	}
	return k.refreshOlderThan(ctx, keyCacheTTL)
}

// fresh says the keys were read less than age ago.
func (k *KeyStore) fresh(age time.Duration) bool {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.signing != nil && k.now().Sub(k.loadedAt) < age
}

// refreshOlderThan reads the keys unless they were read less than age ago. Concurrent callers wait for
// one read rather than each making their own.
func (k *KeyStore) refreshOlderThan(ctx context.Context, age time.Duration) error {
	if age > 0 && k.fresh(age) {
		return nil
	}
	k.loading.Lock()
	defer k.loading.Unlock()
	if age > 0 && k.fresh(age) {
		return nil
	}
	return k.load(ctx)
}

// load reads the published keys. A plain read does: only when a key is missing or due (the first key,
// or the successor of one near the end of its term) does it take the signing-key lock, in a
// transaction, to create it.
func (k *KeyStore) load(ctx context.Context) error {
	k.loads.Add(1)
	const query = `SELECT kid, private_key, public_jwk, activated_at, retire_at
		FROM auth_signing_keys WHERE retire_at IS NULL OR retire_at > $1 ORDER BY activated_at`
	var rows []keyRow
	if err := k.db.SelectContext(ctx, &rows, query, k.now()); err != nil {
		return fmt.Errorf("load signing keys: %w", err)
	}
	if k.keysDue(rows) {
		rows = nil
		err := dbx.WithTx(ctx, k.db, func(tx *sqlx.Tx) error {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('loopwork signing keys'))`); err != nil {
				return err
			}
			if err := k.ensureKeys(ctx, tx); err != nil {
				return err
			}
			return tx.SelectContext(ctx, &rows, query, k.now())
		})
		if err != nil {
			return fmt.Errorf("load signing keys: %w", err)
		}
	}
	set := jwk.NewSet()
	var signing keyRow
	for _, r := range rows {
		pub, err := jwk.ParseKey(r.PublicJWK)
		if err != nil {
			return fmt.Errorf("signing key %s: %w", r.Kid, err)
		}
		if err := set.AddKey(pub); err != nil {
			return err
		}
		if !r.ActivatedAt.After(k.now()) {
			signing = r
		}
	}
	raw, err := k.box.Open(signing.PrivateKey, []byte(signing.Kid))
	if err != nil {
		return fmt.Errorf("open signing key %s (is LOOPWORK_ENCRYPTION_KEY the one it was sealed with?): %w", signing.Kid, err)
	}
	priv, err := jwk.ParseKey(raw)
	if err != nil {
		return err
	}
	k.mu.Lock()
	k.signing, k.public, k.loadedAt = priv, set, k.now()
	k.mu.Unlock()
	return nil
}

// keysDue says whether ensureKeys has work: no key signs yet, or the newest one is near the end of
// its term and has no successor.
func (k *KeyStore) keysDue(rows []keyRow) bool {
	if len(rows) == 0 {
		return true
	}
	now := k.now()
	newest := rows[len(rows)-1].ActivatedAt
	return rows[0].ActivatedAt.After(now) || now.After(newest.Add(k.rotation-k.lead))
}

// ensureKeys creates the first key, and the successor of a key about to reach the end of its term.
func (k *KeyStore) ensureKeys(ctx context.Context, tx *sqlx.Tx) error {
	var newest *time.Time
	if err := tx.GetContext(ctx, &newest, `SELECT max(activated_at) FROM auth_signing_keys`); err != nil {
		return err
	}
	now := k.now()
	switch {
	case newest == nil:
		return k.insertKey(ctx, tx, now)
	case now.After(newest.Add(k.rotation - k.lead)):
		start := newest.Add(k.rotation)
		if start.Before(now.Add(k.lead)) {
			start = now.Add(k.lead)
		}
		return k.insertKey(ctx, tx, start)
	}
	return nil
}

// insertKey adds a key that signs from activateAt and schedules the retirement of the keys before it.
func (k *KeyStore) insertKey(ctx context.Context, tx *sqlx.Tx, activateAt time.Time) error {
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	priv, err := jwk.Import(ec)
	if err != nil {
		return err
	}
	kid := ulid.Make().String()
	for _, kv := range []struct {
		k string
		v any
	}{{jwk.KeyIDKey, kid}, {jwk.AlgorithmKey, jwa.ES256()}, {jwk.KeyUsageKey, "sig"}} {
		if err := priv.Set(kv.k, kv.v); err != nil {
			return err
		}
	}
	pub, err := priv.PublicKey()
	if err != nil {
		return err
	}
	privJSON, err := json.Marshal(priv)
	if err != nil {
		return err
	}
	pubJSON, err := json.Marshal(pub)
	if err != nil {
		return err
	}
	sealed, err := k.box.Seal(privJSON, []byte(kid))
	if err != nil {
		return err
	}
	// Tokens signed by the older keys live at most tokenTTL after the new key takes over.
	if _, err := tx.ExecContext(ctx, `UPDATE auth_signing_keys SET retire_at = $1
		WHERE retire_at IS NULL AND activated_at < $2`, activateAt.Add(k.tokenTTL+time.Minute), activateAt); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO auth_signing_keys (kid, algorithm, private_key, public_jwk, activated_at)
		VALUES ($1, 'ES256', $2, $3, $4)`, kid, sealed, string(pubJSON), activateAt)
	return err
}
