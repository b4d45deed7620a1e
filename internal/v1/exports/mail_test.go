package exports_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/testkit"
	openapi_types "github.com/oapi-codegen/runtime/types"
)

// TestExportSendsItsLink: with sendEmail the link goes out by mail (through the outbox, in the
// transaction that finishes the export) and downloads the file; the caller's own address is the
// default.
func TestExportSendsItsLink(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.seedFixed(t)
	res, err := f.admin.V1.ExportJobResponsesWithResponse(ctx, f.app, &v1api.ExportJobResponsesParams{SendEmail: new(true), Csv: new(true)},
		v1api.AppInstanceEmail{Email: new(openapi_types.Email("finance@example.com"))})
	testkit.Expect(t, res, err, http.StatusAccepted)
	if res.JSON202.Email == nil || *res.JSON202.Email != "finance@example.com" {
		t.Fatalf("reply %s", res.Body)
	}
	e := f.wait(t, f.admin, res.JSON202.ExportId)
	var mail struct {
		To   string `db:"recipient"`
		Body string `db:"text_body"`
	}
	if err := f.env.DB.Get(&mail, `SELECT recipient, text_body FROM mail_outbox WHERE recipient = 'finance@example.com'`); err != nil {
		t.Fatal(err)
	}
	// Mail is written outside any request, so its link starts with the configured public URL (the listen
	// address here); the test server listens elsewhere, and the token is what the link is.
	link := regexp.MustCompile(`http\S+/api/storage/download/(\S+)`).FindStringSubmatch(mail.Body)
	if link == nil {
		t.Fatalf("no link in the mail:\n%s", mail.Body)
	}
	got, err := http.Get(f.env.URL + "/api/storage/download/" + link[1])
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(got.Body)
	got.Body.Close()
	if got.StatusCode != 200 || int64(len(b)) != *e.SizeBytes {
		t.Fatalf("the mailed link answered %d with %d bytes, the file has %d", got.StatusCode, len(b), *e.SizeBytes)
	}
	own, err := f.admin.V1.ExportJobResponsesWithResponse(ctx, f.app, &v1api.ExportJobResponsesParams{SendEmail: new(true)}, v1api.AppInstanceEmail{})
	testkit.Expect(t, own, err, http.StatusAccepted)
	if own.JSON202.Email == nil || string(*own.JSON202.Email) != f.admin.Email {
		t.Fatalf("default address %v", own.JSON202.Email)
	}
}

// TestExpiredExportsGo: past expires_at the export is EXPIRED, its link is refused and its file is gone.
func TestExpiredExportsGo(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.seedFixed(t)
	e, _ := f.export(t, f.admin, v1api.ExportJobResponsesParams{})
	var key string
	f.env.DB.Get(&key, `SELECT storage_key FROM exports WHERE id = $1`, e.Id)
	f.env.DB.MustExec(`UPDATE exports SET expires_at = now() - interval '1 second' WHERE id = $1`, e.Id)
	link, err := f.admin.V1.GetJobResponsesLinkWithResponse(ctx, e.Filename, nil)
	testkit.Expect(t, link, err, http.StatusNotFound)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		got, err := f.admin.V1.GetExportWithResponse(ctx, f.app, e.Id, nil)
		testkit.Expect(t, got, err, http.StatusOK)
		if got.JSON200.Status == "EXPIRED" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %s 20 s after expiry", got.JSON200.Status)
		}
	}
	if _, err := os.Stat(filepath.Join(f.env.Config.StorageDir, filepath.FromSlash(key))); !os.IsNotExist(err) {
		t.Fatal("the expired file is still stored")
	}
}
