package integrations_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/blob"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestMetadataOfFileStorage: the top-level entries of the credential's bucket on a real S3 server; a
// wrong secret is 502, a loopback endpoint without the allow-list 400 ssrf_blocked.
func TestMetadataOfFileStorage(t *testing.T) {
	t.Parallel()
	s3 := testkit.S3(t)
	store, err := blob.NewS3(s3)
	if err != nil {
		t.Fatal(err)
	}
	for key, body := range map[string]string{"invoices.csv": "a,b\n", "inbox/one.eml": "x"} {
		if _, err := store.Put(ctx, key, strings.NewReader(body), ""); err != nil {
			t.Fatal(err)
		}
	}
	data := func(secret string) map[string]any {
		return map[string]any{"access_key_id": s3.AccessKey, "secret_access_key": secret, "endpoint": s3.Endpoint,
			"bucket": s3.Bucket, "region": s3.Region}
	}
	allowed := testkit.NewEnv(t, testkit.WithoutWorkers(), testkit.WithConfig(func(c *config.Config) { c.OutboundAllow = "127.0.0.0/8" }))
	c := allowed.User(t, allowed.Org(t), auth.RoleAppUser)
	flow := testkit.NewFlow(t, c, twoTasks)
	for i, tc := range []struct {
		secret string
		want   int
	}{{s3.SecretKey, http.StatusOK}, {"wrong-secret", http.StatusBadGateway}} {
		cred := newCredential(t, c, "file_storage", "api_key", data(tc.secret))
		in := integrate(t, c, flow, &cred, []string{"fetch", "shape"}[i])
		res, err := c.API.GetIntegrationMetadataWithResponse(ctx, in.Id)
		testkit.Expect(t, res, err, tc.want)
		if strings.Contains(string(res.Body), s3.SecretKey) {
			t.Fatalf("the secret is shown: %s", res.Body)
		}
		if tc.want == http.StatusOK && !strings.Contains(res.JSON200.Metadata, "  inbox/ (folder)\n  invoices.csv (4 bytes)\n") {
			t.Fatalf("metadata %s", res.JSON200.Metadata)
		}
	}
	guarded := testkit.NewEnv(t, testkit.WithoutWorkers())
	g := guarded.User(t, guarded.Org(t), auth.RoleAppUser)
	gflow := testkit.NewFlow(t, g, twoTasks)
	cred := newCredential(t, g, "file_storage", "api_key", data(s3.SecretKey))
	in := integrate(t, g, gflow, &cred, "fetch")
	res, err := g.API.GetIntegrationMetadataWithResponse(ctx, in.Id)
	testkit.Expect(t, res, err, http.StatusBadRequest)
	if e := testkit.ErrorOf(t, res); e.Code == nil || *e.Code != "ssrf_blocked" {
		t.Fatalf("%s", res.Body)
	}
}
