package auth

import "time"

// SetClock and Lead let the external tests drive a key store through simulated time.
func (k *KeyStore) SetClock(now func() time.Time) { k.now = now }

func (k *KeyStore) Lead() time.Duration { return k.lead }

// Loads is how many times the key store has read the keys.
func (k *KeyStore) Loads() int64 { return k.loads.Load() }
