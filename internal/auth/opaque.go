package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"math/big"
	"strings"
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// APIKeyPrefix marks loopwork API keys so they are recognisable in logs and by secret scanners, and so
// the authenticator can tell them from JWTs without parsing.
const APIKeyPrefix = "lw_"

// randomString returns n base62 characters (about 5.95 bits each) from crypto/rand.
func randomString(n int) string {
	var b strings.Builder
	max := big.NewInt(int64(len(base62)))
	for i := 0; i < n; i++ {
		k, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic(err) // crypto/rand does not fail on supported platforms
		}
		b.WriteByte(base62[k.Int64()])
	}
	return b.String()
}

// NewAPIKey returns a token (lw_ + 43 base62 characters, about 256 bits) and its display prefix, the
// first 12 characters as the contract describes token_prefix.
func NewAPIKey() (token, prefix string) {
	token = APIKeyPrefix + randomString(43)
	return token, token[:12]
}

// NewOpaqueToken returns a random token for refresh tokens and e-mailed links.
func NewOpaqueToken() string { return randomString(43) }

// HashToken is how high-entropy tokens are stored and looked up. A fast hash is enough: the tokens are
// random, not chosen by people, so there is nothing to brute-force.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
