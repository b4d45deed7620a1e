package secret_test

import (
	"bytes"
	"crypto/rand"
	"testing"

	"github.com/loopwork/loopwork/internal/secret"
)

func TestSealOpen(t *testing.T) {
	t.Parallel()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	b, err := secret.NewBox(key)
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := b.Seal([]byte("hunter2"), []byte("row-1"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("hunter2")) {
		t.Fatal("plaintext visible in sealed value")
	}
	if pt, err := b.Open(sealed, []byte("row-1")); err != nil || string(pt) != "hunter2" {
		t.Fatalf("open: %q %v", pt, err)
	}
	if _, err := b.Open(sealed, []byte("row-2")); err == nil {
		t.Fatal("opened with the wrong context")
	}
	sealed[len(sealed)-1] ^= 1
	if _, err := b.Open(sealed, []byte("row-1")); err == nil {
		t.Fatal("opened a tampered value")
	}
	other := make([]byte, 32)
	_, _ = rand.Read(other)
	b2, _ := secret.NewBox(other)
	s2, _ := b.Seal([]byte("x"), nil)
	if _, err := b2.Open(s2, nil); err == nil {
		t.Fatal("opened with another key")
	}
	if _, err := secret.NewBox(make([]byte, 16)); err == nil {
		t.Fatal("accepted a short key")
	}
}
