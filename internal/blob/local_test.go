package blob

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestLocalRoundTripAndAtomicity(t *testing.T) {
	ctx := context.Background()
	l, err := NewLocal(t.TempDir(), NewSigner([]byte("k")), func(context.Context) string { return "http://x/api/storage/download/" })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Put(ctx, "org/a/file.csv", strings.NewReader("a,b\n1,2\n"), "text/csv"); err != nil {
		t.Fatal(err)
	}
	rc, info, err := l.Open(ctx, "org/a/file.csv")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if string(b) != "a,b\n1,2\n" || info.Size != 8 {
		t.Fatalf("got %q size %d", b, info.Size)
	}
	// A reader that fails half way leaves nothing under the key.
	_, err = l.Put(ctx, "org/a/broken.csv", iotest.TimeoutReader(strings.NewReader("partial")), "text/csv")
	if err == nil {
		t.Fatal("expected the failing reader's error")
	}
	if _, err := l.Stat(ctx, "org/a/broken.csv"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("partial object visible: %v", err)
	}
	for _, bad := range []string{"", "/etc/passwd", "a/../../b", "a//b", "a\\b"} {
		if _, err := l.Put(ctx, bad, strings.NewReader("x"), ""); !errors.Is(err, ErrBadKey) {
			t.Errorf("key %q: %v", bad, err)
		}
	}
	if err := l.Delete(ctx, "org/a/file.csv"); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete(ctx, "org/a/file.csv"); err != nil {
		t.Fatal("second delete:", err)
	}
}

func TestSignerRejectsTamperingAndExpiry(t *testing.T) {
	s := NewSigner([]byte("secret"))
	now := time.Now()
	tok := s.Sign("org/a/x.csv", "x.csv", now.Add(time.Hour))
	if k, f, err := s.Verify(tok, now); err != nil || k != "org/a/x.csv" || f != "x.csv" {
		t.Fatalf("verify: %q %q %v", k, f, err)
	}
	if _, _, err := s.Verify(tok, now.Add(2*time.Hour)); !errors.Is(err, ErrExpiredLink) {
		t.Fatal("expired link accepted")
	}
	if _, _, err := NewSigner([]byte("other")).Verify(tok, now); !errors.Is(err, ErrBadLink) {
		t.Fatal("link of another key accepted")
	}
	forged := s.Sign("org/b/y.csv", "", now.Add(time.Hour))
	p, _, _ := strings.Cut(tok, ".")
	_, sig, _ := strings.Cut(forged, ".")
	if _, _, err := s.Verify(p+"."+sig, now); !errors.Is(err, ErrBadLink) {
		t.Fatal("mixed token accepted")
	}
}
