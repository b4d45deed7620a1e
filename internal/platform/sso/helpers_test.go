package sso_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/loopwork/loopwork/gen/platformapi"
)

var ctx = context.Background()

var (
	certOnce sync.Once
	certB64  string
)

// idpCert is a self-signed certificate as an identity provider publishes it: base64 DER.
func idpCert(t *testing.T) string {
	t.Helper()
	certOnce.Do(func() {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "idp.example.com"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			panic(err)
		}
		certB64 = base64.StdEncoding.EncodeToString(der)
	})
	return certB64
}

// metadataXML is valid SAML 2.0 metadata of one identity provider, the certificate wrapped over lines
// the way providers publish it.
func metadataXML(t *testing.T, entityID string) string {
	t.Helper()
	c := idpCert(t)
	var wrapped strings.Builder
	for len(c) > 64 {
		wrapped.WriteString(c[:64] + "\n        ")
		c = c[64:]
	}
	wrapped.WriteString(c)
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="%s">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo><ds:X509Data><ds:X509Certificate>
        %s
      </ds:X509Certificate></ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.com/sso"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>
`, entityID, wrapped.String())
}

// uniqueDomain returns a domain no other test uses: domains are unique across the whole database.
func uniqueDomain(label string) string {
	return label + "-" + uuid.NewString()[:8] + ".example.com"
}

func wantStatus(t *testing.T, what string, res *http.Response, body []byte, want int) {
	t.Helper()
	if res.StatusCode != want {
		t.Fatalf("%s: status %d, want %d: %s", what, res.StatusCode, want, body)
	}
}

// wantError checks status and that the body mentions text (an error code or part of a message).
func wantError(t *testing.T, what string, res *http.Response, body []byte, status int, text string) {
	t.Helper()
	wantStatus(t, what, res, body, status)
	if !strings.Contains(string(body), text) {
		t.Fatalf("%s: body does not mention %q: %s", what, text, body)
	}
}

// createProvider registers a provider from inline metadata and fails the test unless it answers 201.
func createProvider(t *testing.T, api *platformapi.ClientWithResponses, domains ...string) *platformapi.SSOOrganizationResponse {
	t.Helper()
	res, err := api.CreateSsoProviderWithResponse(ctx, platformapi.SSOProviderCreate{
		Domains: domains, MetadataXml: new(metadataXML(t, "https://idp.example.com/"+uuid.NewString()))})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "create provider", res.HTTPResponse, res.Body, http.StatusCreated)
	return res.JSON201
}

// lookup asks which provider serves an address, without credentials.
func lookup(t *testing.T, api *platformapi.ClientWithResponses, email string) platformapi.SSOLookupResponse {
	t.Helper()
	res, err := api.LookupSsoProviderWithResponse(ctx, &platformapi.LookupSsoProviderParams{Email: openapi_types.Email(email)})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "lookup "+email, res.HTTPResponse, res.Body, http.StatusOK)
	return *res.JSON200
}
