package storage_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/blob"
	"github.com/loopwork/loopwork/internal/platform/storage"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestStorageLinks: storage URIs and keys of the caller's organization resolve to one-hour links;
// another organization's object answers like a missing one; bad URIs are 422.
func TestStorageLinks(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	org, stranger := env.Org(t), env.Org(t)
	c, s := env.User(t, org, auth.RoleAppUser), env.User(t, stranger, auth.RoleAppUser)
	files, err := blob.NewLocal(env.Config.StorageDir, blob.NewSigner(env.Config.EncryptionKeyBytes()),
		func(context.Context) string { return env.URL + "/api/storage/download/" })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := files.Put(ctx, storage.OrgKey(org, "exports/report.csv"), strings.NewReader("x,y\r\n"), "text/csv"); err != nil {
		t.Fatal(err)
	}
	res, err := c.API.ResolveStorageUriWithResponse(ctx, platformapi.ResolveUriRequest{Uri: "storage://exports/report.csv"})
	testkit.Expect(t, res, err, http.StatusOK)
	if res.JSON200.ExpiresInSeconds != 3600 {
		t.Fatalf("expires in %d", res.JSON200.ExpiresInSeconds)
	}
	got, err := http.Get(res.JSON200.DownloadUrl)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(got.Body)
	got.Body.Close()
	if got.StatusCode != 200 || string(body) != "x,y\r\n" {
		t.Fatalf("download %d %q", got.StatusCode, body)
	}
	// The full key, as blob URIs carry it, resolves too.
	full, err := c.API.ResolveStorageUriWithResponse(ctx, platformapi.ResolveUriRequest{Uri: "storage://org/" + org.String() + "/exports/report.csv"})
	testkit.Expect(t, full, err, http.StatusOK)

	missing, err := s.API.ResolveStorageUriWithResponse(ctx, platformapi.ResolveUriRequest{Uri: "storage://exports/nothing.csv"})
	testkit.Expect(t, missing, err, http.StatusNotFound)
	for _, uri := range []string{"storage://exports/report.csv", "storage://org/" + org.String() + "/exports/report.csv"} {
		theirs, _ := s.API.ResolveStorageUriWithResponse(ctx, platformapi.ResolveUriRequest{Uri: uri})
		testkit.SameAsMissing(t, theirs, missing)
	}
	for _, bad := range []string{"http://example.com/x", "storage://a/../../etc/passwd", "storage:opaque", "storage://"} {
		r, err := c.API.ResolveStorageUriWithResponse(ctx, platformapi.ResolveUriRequest{Uri: bad})
		testkit.Expect(t, r, err, http.StatusUnprocessableEntity)
	}
	s3, err := c.API.ResolveStorageUriWithResponse(ctx, platformapi.ResolveUriRequest{Uri: "s3://bucket/exports/report.csv"})
	testkit.Expect(t, s3, err, http.StatusNotFound)

	pre, err := c.API.CreatePresignedDownloadUrlWithResponse(ctx, platformapi.GeneratePresignedUrlForDownload{FileKey: "exports/report.csv"})
	testkit.Expect(t, pre, err, http.StatusOK)
	if pre.JSON200.ExpiresAt == nil || !strings.Contains(pre.JSON200.DownloadUrl, "/api/storage/download/") {
		t.Fatalf("presigned %+v", pre.JSON200)
	}
	preTheirs, err := s.API.CreatePresignedDownloadUrlWithResponse(ctx, platformapi.GeneratePresignedUrlForDownload{FileKey: "exports/report.csv"})
	testkit.Expect(t, preTheirs, err, http.StatusNotFound)
	anon, _ := env.Clients(t, "")
	unauth, err := anon.ResolveStorageUriWithResponse(ctx, platformapi.ResolveUriRequest{Uri: "storage://exports/report.csv"})
	testkit.Expect(t, unauth, err, http.StatusUnauthorized)
}
