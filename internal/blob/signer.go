package blob

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// ErrBadLink is returned for a download token that was not signed here or was altered.
var ErrBadLink = errors.New("blob: invalid link")

// ErrExpiredLink is returned for a genuine token past its expiry.
var ErrExpiredLink = errors.New("blob: expired link")

// Signer makes and checks download tokens: base64url(JSON claims) "." base64url(HMAC-SHA256).
type Signer struct{ key []byte }

// NewSigner derives the link key from the server's secret, so links stay valid across restarts and
// replicas without another setting, yet the secret itself is never used directly as an HMAC key.
func NewSigner(secret []byte) *Signer {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("loopwork blob download links v1"))
	return &Signer{key: m.Sum(nil)}
}

type claims struct {
	Key      string `json:"k"`
	Filename string `json:"f,omitempty"`
	Expires  int64  `json:"e"`
}

// Sign returns a token for key valid until exp.
func (s *Signer) Sign(key, filename string, exp time.Time) string {
	body, _ := json.Marshal(claims{Key: key, Filename: filename, Expires: exp.Unix()})
	p := base64.RawURLEncoding.EncodeToString(body)
	return p + "." + base64.RawURLEncoding.EncodeToString(s.mac(p))
}

// Verify returns the object key and download name a token names, ErrBadLink for a token not signed
// here, or ErrExpiredLink.
func (s *Signer) Verify(token string, now time.Time) (key, filename string, err error) {
	p, sig, ok := strings.Cut(token, ".")
	if !ok {
		return "", "", ErrBadLink
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.mac(p)) {
		return "", "", ErrBadLink
	}
	body, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil {
		return "", "", ErrBadLink
	}
	var c claims
	if json.Unmarshal(body, &c) != nil || CheckKey(c.Key) != nil {
		return "", "", ErrBadLink
	}
	if now.Unix() >= c.Expires {
		return "", "", ErrExpiredLink
	}
	return c.Key, c.Filename, nil
}

func (s *Signer) mac(p string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(p))
	return m.Sum(nil)
}
