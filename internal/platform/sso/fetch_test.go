package sso_test

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/netguard"
	"github.com/loopwork/loopwork/internal/testkit"
)

// idpServer serves metadata over TLS on 127.0.0.1, plus the failure modes a fetch must survive, and
// counts the requests it receives.
func idpServer(t *testing.T, doc string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/metadata", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/samlmetadata+xml")
		_, _ = w.Write([]byte(doc))
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/huge", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(doc[:strings.Index(doc, "<md:IDPSSODescriptor")] + "<!--"))
		chunk := []byte(strings.Repeat("x", 64<<10))
		for i := 0; i < 20; i++ { // 1.25 MiB
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/not-metadata", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<html><body>Sign in</body></html>"))
	})
	mux.HandleFunc("/downgrade", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+r.Host+"/metadata", http.StatusFound)
	})
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts, &hits
}

// TestMetadataURLRefusedByGuard: with the default guard a metadata URL on a loopback address is never
// fetched.
func TestMetadataURLRefusedByGuard(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	admin := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	ts, hits := idpServer(t, metadataXML(t, "https://idp.example.com/guard"))
	for _, u := range []string{ts.URL + "/metadata", "https://localhost:" + ts.URL[strings.LastIndex(ts.URL, ":")+1:] + "/metadata"} {
		res, err := admin.API.CreateSsoProviderWithResponse(ctx, platformapi.SSOProviderCreate{
			Domains: []string{uniqueDomain("guard")}, MetadataUrl: &u})
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, u, res.HTTPResponse, res.Body, http.StatusUnprocessableEntity, "is not allowed")
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the guarded client reached the loopback server %d times", n)
	}
}

// TestMetadataURL: with loopback allowed (and the test server's certificate trusted) metadata is
// fetched at once and stored; bad answers are 422s that say why; new inline XML replaces the URL.
func TestMetadataURL(t *testing.T) {
	t.Parallel()
	doc := metadataXML(t, "https://idp.example.com/fetched")
	ts, _ := idpServer(t, doc)
	roots := x509.NewCertPool()
	roots.AddCert(ts.Certificate())
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	client := netguard.New([]*net.IPNet{loopback}).Client(netguard.Options{RootCAs: roots})
	env := testkit.NewEnv(t, testkit.WithOutboundClient(client))
	admin := env.User(t, env.Org(t), auth.RoleOrgAdmin)

	for path, want := range map[string]string{
		"/missing":      "could not be fetched: the server answered 404",
		"/huge":         "larger than 1 MiB",
		"/not-metadata": "invalid metadata",
		"/downgrade":    "does not use https",
	} {
		u := ts.URL + path
		res, err := admin.API.CreateSsoProviderWithResponse(ctx, platformapi.SSOProviderCreate{
			Domains: []string{uniqueDomain("bad")}, MetadataUrl: &u})
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, path, res.HTTPResponse, res.Body, http.StatusUnprocessableEntity, want)
	}

	u := ts.URL + "/metadata"
	res, err := admin.API.CreateSsoProviderWithResponse(ctx, platformapi.SSOProviderCreate{
		Domains: []string{uniqueDomain("fetched")}, MetadataUrl: &u})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "create from URL", res.HTTPResponse, res.Body, http.StatusCreated)
	p := res.JSON201
	sum := sha256.Sum256([]byte(doc))
	if p.MetadataUrl == nil || *p.MetadataUrl != u || *p.MetadataXmlHash != hex.EncodeToString(sum[:]) {
		t.Fatalf("provider from URL %+v", p)
	}
	var stored, entityID string
	if err := env.DB.QueryRow(`SELECT metadata_xml, entity_id FROM sso_providers WHERE id = $1`, p.SsoProviderId).
		Scan(&stored, &entityID); err != nil || stored != doc || entityID != "https://idp.example.com/fetched" {
		t.Fatalf("stored metadata: entity %q, document matches %v (%v)", entityID, stored == doc, err)
	}

	inline := metadataXML(t, "https://idp.example.com/inline")
	upd := update(t, admin.API, p.SsoProviderId, platformapi.SSOProviderUpdate{MetadataXml: &inline}, http.StatusOK)
	if upd.MetadataUrl != nil || *upd.MetadataXmlHash == *p.MetadataXmlHash {
		t.Fatalf("inline XML did not replace the URL: %+v", upd)
	}
	upd = update(t, admin.API, p.SsoProviderId, platformapi.SSOProviderUpdate{MetadataUrl: &u}, http.StatusOK)
	if upd.MetadataUrl == nil || *upd.MetadataUrl != u || *upd.MetadataXmlHash != *p.MetadataXmlHash {
		t.Fatalf("a URL did not replace the inline XML: %+v", upd)
	}
}
