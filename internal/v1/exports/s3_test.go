package exports_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestExportToS3: with S3 storage configured, the file goes to the bucket of a real S3 server and the
// link is the server's presigned GET; its s3:// URI resolves through /api/storage/resolve.
func TestExportToS3(t *testing.T) {
	t.Parallel()
	s3 := testkit.S3(t)
	f := newFixture(t, testkit.WithConfig(func(c *config.Config) {
		c.S3Endpoint, c.S3Bucket, c.S3AccessKey, c.S3SecretKey, c.S3PathStyle = s3.Endpoint, s3.Bucket, s3.AccessKey, s3.SecretKey, true
	}))
	f.seedFixed(t)
	e, file := f.export(t, f.admin, v1api.ExportJobResponsesParams{Csv: new(true), FlattenedOutput: new(false)})
	if !strings.HasPrefix(file, "id,status,") || strings.Count(file, "\r\n") != 3 {
		t.Fatalf("file from S3:\n%s", file)
	}
	link, err := f.admin.V1.GetJobResponsesLinkWithResponse(ctx, e.Filename, nil)
	testkit.Expect(t, link, err, http.StatusOK)
	if !strings.HasPrefix(link.JSON200.Url, s3.Endpoint+"/"+s3.Bucket+"/") || !strings.Contains(link.JSON200.Url, "X-Amz-Signature") {
		t.Fatalf("not a presigned S3 link: %s", link.JSON200.Url)
	}
	var key string
	if err := f.env.DB.Get(&key, `SELECT storage_key FROM exports WHERE id = $1`, e.Id); err != nil {
		t.Fatal(err)
	}
	res, err := f.admin.API.ResolveStorageUriWithResponse(ctx, platformapi.ResolveUriRequest{Uri: "s3://" + s3.Bucket + "/" + key})
	testkit.Expect(t, res, err, http.StatusOK)
	other, err := f.admin.API.ResolveStorageUriWithResponse(ctx, platformapi.ResolveUriRequest{Uri: "s3://another-bucket/" + key})
	testkit.Expect(t, other, err, http.StatusNotFound)
}
