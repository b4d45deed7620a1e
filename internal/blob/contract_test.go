package blob_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/loopwork/loopwork/internal/blob"
	"github.com/loopwork/loopwork/internal/testkit"
)

// stores are the backends every contract test runs on: local disk, and S3 on a real S3 server.
func stores(t *testing.T) map[string]blob.Store {
	local, err := blob.NewLocal(t.TempDir(), blob.NewSigner([]byte("k")), func(context.Context) string { return "http://x/d/" })
	if err != nil {
		t.Fatal(err)
	}
	s3, err := blob.NewS3(testkit.S3(t))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]blob.Store{"local": local, "s3": s3}
}

// TestStoreContract: put, stat, open, overwrite, delete, not-found, bad keys and the atomic put, the
// same on every backend; S3's links download without credentials.
func TestStoreContract(t *testing.T) {
	ctx := context.Background()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			big := strings.Repeat("0123456789", 2_000_000) // 20 MB: more than one part on S3
			info, err := s.Put(ctx, "org/a/big.csv", strings.NewReader(big), "text/csv")
			if err != nil || info.Size != int64(len(big)) {
				t.Fatalf("put: %v %+v", err, info)
			}
			st, err := s.Stat(ctx, "org/a/big.csv")
			if err != nil || st.Size != int64(len(big)) {
				t.Fatalf("stat: %v %+v", err, st)
			}
			rc, _, err := s.Open(ctx, "org/a/big.csv")
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(rc)
			rc.Close()
			if string(got) != big {
				t.Fatalf("read %d bytes back, want %d", len(got), len(big))
			}
			if _, err := s.Put(ctx, "org/a/big.csv", strings.NewReader("small"), "text/csv"); err != nil {
				t.Fatal(err)
			}
			if st, _ := s.Stat(ctx, "org/a/big.csv"); st.Size != 5 {
				t.Fatalf("overwrite left %d bytes", st.Size)
			}
			// A reader that fails half way leaves nothing under the key.
			failing := io.MultiReader(strings.NewReader(big), iotest.ErrReader(errors.New("disk on fire")))
			if _, err := s.Put(ctx, "org/a/partial.csv", failing, "text/csv"); err == nil {
				t.Fatal("a failing reader was stored")
			}
			if _, err := s.Stat(ctx, "org/a/partial.csv"); !errors.Is(err, blob.ErrNotFound) {
				t.Fatalf("a partial object is visible: %v", err)
			}
			if _, _, err := s.Open(ctx, "org/a/missing"); !errors.Is(err, blob.ErrNotFound) {
				t.Fatalf("open missing: %v", err)
			}
			for _, bad := range []string{"", "/abs", "a/../b", "a//b"} {
				if _, err := s.Put(ctx, bad, strings.NewReader("x"), ""); !errors.Is(err, blob.ErrBadKey) {
					t.Errorf("key %q: %v", bad, err)
				}
			}
			if err := s.Delete(ctx, "org/a/big.csv"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Stat(ctx, "org/a/big.csv"); !errors.Is(err, blob.ErrNotFound) {
				t.Fatalf("after delete: %v", err)
			}
			if err := s.Delete(ctx, "org/a/big.csv"); err != nil {
				t.Fatalf("second delete: %v", err)
			}
		})
	}
}

// TestS3Links: a presigned link downloads the object with a plain GET, under the name given.
func TestS3Links(t *testing.T) {
	ctx := context.Background()
	s, err := blob.NewS3(testkit.S3(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "org/b/x.csv", strings.NewReader("a,b\r\n"), "text/csv"); err != nil {
		t.Fatal(err)
	}
	url, err := s.URL(ctx, "org/b/x.csv", time.Minute, "report.csv")
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || string(b) != "a,b\r\n" || !strings.Contains(res.Header.Get("Content-Disposition"), "report.csv") {
		t.Fatalf("presigned GET: %d %q %v", res.StatusCode, b, res.Header)
	}
	if s.URI("org/b/x.csv") != "s3://loopwork/org/b/x.csv" {
		t.Fatalf("uri %s", s.URI("org/b/x.csv"))
	}
}
