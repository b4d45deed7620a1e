package authn_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jwt"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/netguard"
	"github.com/loopwork/loopwork/internal/secret"
	"github.com/loopwork/loopwork/internal/testkit"
)

// serverKey opens the server's current signing key, to forge tokens that differ from genuine ones in
// exactly one respect.
func serverKey(t *testing.T, env *testkit.Env) jwk.Key {
	t.Helper()
	api, _ := env.Clients(t, "")
	if res, err := api.GetJwksWithResponse(ctx); err != nil || res.StatusCode() != 200 {
		t.Fatalf("jwks: %v", err)
	}
	box, err := secret.NewBox(env.Config.EncryptionKeyBytes())
	if err != nil {
		t.Fatal(err)
	}
	var row struct {
		Kid        string `db:"kid"`
		PrivateKey []byte `db:"private_key"`
	}
	if err := env.DB.Get(&row, `SELECT kid, private_key FROM auth_signing_keys WHERE activated_at <= now() ORDER BY activated_at DESC LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	raw, err := box.Open(row.PrivateKey, []byte(row.Kid))
	if err != nil {
		t.Fatal(err)
	}
	key, err := jwk.ParseKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

type claims struct {
	iss, aud, sub, session, org string
	exp                         time.Time
}

func build(t *testing.T, c claims) jwt.Token {
	t.Helper()
	tok, err := jwt.NewBuilder().Issuer(c.iss).Audience([]string{c.aud}).Subject(c.sub).IssuedAt(time.Now().Add(-time.Minute)).
		Expiration(c.exp).Claim("session_id", c.session).Claim("organization_id", c.org).Build()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func sign(t *testing.T, tok jwt.Token, alg jwa.SignatureAlgorithm, key any) string {
	t.Helper()
	b, err := jwt.Sign(tok, jwt.WithKey(alg, key))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func b64(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

// TestForgedTokensAreRefused: each forgery differs from a genuine token in one way and gets 401.
func TestForgedTokensAreRefused(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	key := serverKey(t, env)
	kid, _ := key.KeyID()
	good := claims{iss: env.Config.JWTIssuer, aud: env.Config.JWTAudience, sub: c.UserID.String(),
		session: c.SessionID.String(), org: c.OrgID.String(), exp: time.Now().Add(time.Hour)}

	if s := authUserStatus(t, env, sign(t, build(t, good), jwa.ES256(), key)); s != 200 {
		t.Fatalf("a genuine token built the same way must work: %d", s)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	otherSameKid, _ := jwk.Import(other)
	_ = otherSameKid.Set(jwk.KeyIDKey, kid)
	otherNewKid, _ := jwk.Import(other)
	_ = otherNewKid.Set(jwk.KeyIDKey, "unknown-kid")
	pub, _ := key.PublicKey()
	pubJSON, _ := json.Marshal(pub)
	hsKey, _ := jwk.Import(pubJSON)
	_ = hsKey.Set(jwk.KeyIDKey, kid)

	with := func(f func(*claims)) claims { cc := good; f(&cc); return cc }
	genuine := sign(t, build(t, good), jwa.ES256(), key)
	parts := strings.Split(genuine, ".")
	tampered := parts[0] + "." + b64(map[string]any{"iss": good.iss, "aud": good.aud, "sub": uuid.NewString(),
		"session_id": good.session, "organization_id": good.org, "exp": good.exp.Unix()}) + "." + parts[2]

	forgeries := map[string]string{
		"expired":                             sign(t, build(t, with(func(c *claims) { c.exp = time.Now().Add(-time.Hour) })), jwa.ES256(), key),
		"other issuer":                        sign(t, build(t, with(func(c *claims) { c.iss = "https://evil.example" })), jwa.ES256(), key),
		"other audience":                      sign(t, build(t, with(func(c *claims) { c.aud = "someone-else" })), jwa.ES256(), key),
		"unknown session":                     sign(t, build(t, with(func(c *claims) { c.session = uuid.NewString() })), jwa.ES256(), key),
		"other org":                           sign(t, build(t, with(func(c *claims) { c.org = uuid.NewString() })), jwa.ES256(), key),
		"wrong key, same kid":                 sign(t, build(t, good), jwa.ES256(), otherSameKid),
		"unknown kid":                         sign(t, build(t, good), jwa.ES256(), otherNewKid),
		"HS256 with the public key as secret": sign(t, build(t, good), jwa.HS256(), hsKey),
		"alg none": b64(map[string]string{"alg": "none", "kid": kid, "typ": "JWT"}) + "." +
			b64(map[string]any{"iss": good.iss, "aud": good.aud, "sub": good.sub, "session_id": good.session,
				"organization_id": good.org, "exp": good.exp.Unix()}) + ".",
		"tampered payload": tampered,
		"garbage":          "not.a.jwt",
	}
	for name, tok := range forgeries {
		if s := authUserStatus(t, env, tok); s != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, s)
		}
	}
}

// TestKeyRotation: after a rotation tokens of the old key keep working, tokens of the new key are
// accepted by a replica that has not seen it yet, and the JWKS then publishes both keys.
func TestKeyRotation(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	box, _ := secret.NewBox(env.Config.EncryptionKeyBytes())
	ks := auth.NewKeyStore(env.DB, box, env.Config.SigningKeyRotation, env.Config.AccessTokenTTL)
	if err := ks.Rotate(ctx); err != nil {
		t.Fatal(err)
	}
	if s := authUserStatus(t, env, c.Token); s != 200 {
		t.Fatalf("token of the previous key after rotation: %d", s)
	}
	tokens := auth.NewTokens(ks, env.Config.JWTIssuer, env.Config.JWTAudience, time.Hour, nil)
	fresh, _, err := tokens.Issue(ctx, auth.AccessClaims{UserID: c.UserID, OrganizationID: c.OrgID, SessionID: c.SessionID, Email: c.Email})
	if err != nil {
		t.Fatal(err)
	}
	if s := authUserStatus(t, env, fresh); s != 200 {
		t.Fatalf("token of the new key: %d", s)
	}
	// Meeting the new kid made this replica reload: it now publishes both keys.
	api, _ := env.Clients(t, "")
	res, err := api.GetJwksWithResponse(ctx)
	if err != nil || res.StatusCode() != 200 || len(res.JSON200.Keys) != 2 {
		t.Fatalf("jwks after rotation: %v %s", err, res.Body)
	}
	for _, k := range res.JSON200.Keys {
		if k.Alg != "ES256" || k.Kid == "" || k.Kty != "EC" {
			t.Fatalf("published key: %+v", k)
		}
	}
}

// TestExternalIssuer: with an outside issuer configured, its tokens (sub = a loopwork user id) are
// accepted, and only its own.
func TestExternalIssuer(t *testing.T) {
	t.Parallel()
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	priv, _ := jwk.Import(ec)
	_ = priv.Set(jwk.KeyIDKey, "idp-1")
	pub, _ := priv.PublicKey() // published without "alg", as many issuers do
	set := jwk.NewSet()
	_ = set.AddKey(pub)
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(set)
	}))
	defer idp.Close()
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	env := testkit.NewEnv(t,
		testkit.WithConfig(func(c *config.Config) {
			c.ExternalJWKSURL, c.ExternalIssuer, c.ExternalAudience = idp.URL+"/jwks", "https://idp.example", "loopwork"
		}),
		testkit.WithOutboundClient(netguard.New([]*net.IPNet{loopback}).Client(netguard.Options{})))
	id, _ := env.NewUser(t, env.Org(t), auth.RoleAppUser)
	ext := func(iss, aud, sub string) string {
		tok, _ := jwt.NewBuilder().Issuer(iss).Audience([]string{aud}).Subject(sub).IssuedAt(time.Now()).
			Expiration(time.Now().Add(time.Hour)).Build()
		return sign(t, tok, jwa.ES256(), priv)
	}
	if s := authUserStatus(t, env, ext("https://idp.example", "loopwork", id.String())); s != 200 {
		t.Fatalf("external token: %d", s)
	}
	for name, tok := range map[string]string{
		"other issuer":   ext("https://other.example", "loopwork", id.String()),
		"other audience": ext("https://idp.example", "other", id.String()),
		"unknown user":   ext("https://idp.example", "loopwork", uuid.NewString()),
		"not a user id":  ext("https://idp.example", "loopwork", "alice"),
	} {
		if s := authUserStatus(t, env, tok); s != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, s)
		}
	}
}
