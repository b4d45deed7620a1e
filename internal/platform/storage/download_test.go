package storage_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/blob"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestDownloadLinks: a link downloads its object without credentials; a forged token is 403, an
// expired one 410, a link to an object deleted since is 404.
func TestDownloadLinks(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	files, err := blob.NewLocal(env.Config.StorageDir, blob.NewSigner(env.Config.EncryptionKeyBytes()),
		func(context.Context) string { return env.URL + "/api/storage/download/" })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := files.Put(ctx, "org/x/report.csv", strings.NewReader("a,b\r\n"), "text/csv"); err != nil {
		t.Fatal(err)
	}
	get := func(url string) (int, string) {
		t.Helper()
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	url, _ := files.URL(ctx, "org/x/report.csv", time.Minute, "report.csv")
	if code, body := get(url); code != 200 || body != "a,b\r\n" {
		t.Fatalf("download: %d %q", code, body)
	}
	expired, _ := files.URL(ctx, "org/x/report.csv", -time.Second, "")
	if code, body := get(expired); code != http.StatusGone || !strings.Contains(body, "expired") {
		t.Fatalf("expired: %d %s", code, body)
	}
	forged := url[:len(url)-3] + "abc"
	if code, _ := get(forged); code != http.StatusForbidden {
		t.Fatalf("forged: %d", code)
	}
	other, _ := blob.NewLocal(t.TempDir(), blob.NewSigner([]byte("another key")), func(context.Context) string { return env.URL + "/api/storage/download/" })
	foreign, _ := other.URL(ctx, "org/x/report.csv", time.Minute, "")
	if code, _ := get(foreign); code != http.StatusForbidden {
		t.Fatalf("signed by another key: %d", code)
	}
	if err := files.Delete(ctx, "org/x/report.csv"); err != nil {
		t.Fatal(err)
	}
	if code, _ := get(url); code != http.StatusNotFound {
		t.Fatalf("deleted: %d", code)
	}
}
