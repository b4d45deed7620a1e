package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/secret"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestAdminRekey: every stored secret (a credential, the token signing keys) opens under the new key after
// rekey and no longer under the old one; a server started with the new key signs tokens with the
// re-sealed keys; a rekey with the wrong current key changes nothing; a malformed new key is refused.
func TestAdminRekey(t *testing.T) {
	t.Parallel()
	db := testkit.DB(t)
	env := testkit.NewEnv(t, testkit.WithDB(db))
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	data := map[string]any{"api_key": "sekrit-" + uuid.NewString()}
	res, err := admin.API.CreateCredentialWithResponse(context.Background(), platformapi.CredentialCreateRequest{Name: "k",
		Provider: "vendor_b", CredentialType: "api_key", Data: &data})
	testkit.Expect(t, res, err, http.StatusCreated)
	// A document gives the organization its document database and the sealed password of its role.
	if d := testkit.ImportCSV(t, admin.API, "d", "a\n1\n"); d.Status != platformapi.DocumentFileStatusReady {
		t.Fatalf("import: %+v", d)
	}

	newKey := base64.StdEncoding.EncodeToString([]byte("a new key of exactly 32 bytes!!!"))
	e := envOf(map[string]string{"DATABASE_URL": testkit.DSN(t, db), "LOOPWORK_ENCRYPTION_KEY": testkit.EncryptionKey})
	var out bytes.Buffer
	if err := run(context.Background(), []string{"admin", "rekey", "--new-key", newKey}, &out, e); err != nil ||
		!strings.Contains(out.String(), "re-sealed 1 values of credentials.sealed_secret") ||
		!strings.Contains(out.String(), "re-sealed 1 values of document_databases.sealed_password") {
		t.Fatalf("rekey: %v %q", err, out.String())
	}

	oldBox := box(t, testkit.EncryptionKey)
	newBox := box(t, newKey)
	var sealed []byte
	if err := db.Get(&sealed, `SELECT sealed_secret FROM credentials WHERE id = $1`, res.JSON201.Id); err != nil {
		t.Fatal(err)
	}
	aad := append(org[:], res.JSON201.Id[:]...)
	if plain, err := newBox.Open(sealed, aad); err != nil || !strings.Contains(string(plain), data["api_key"].(string)) {
		t.Fatalf("the credential under the new key: %q %v", plain, err)
	}
	if _, err := oldBox.Open(sealed, aad); err == nil {
		t.Fatal("the credential still opens under the old key")
	}
	var password []byte
	if err := db.Get(&password, `SELECT sealed_password FROM document_databases WHERE organization_id = $1`, org); err != nil {
		t.Fatal(err)
	}
	if _, err := newBox.Open(password, org[:]); err != nil {
		t.Fatal("the password of the organization's document role does not open under the new key")
	}
	var keys []struct {
		Kid        string `db:"kid"`
		PrivateKey []byte `db:"private_key"`
	}
	if err := db.Select(&keys, `SELECT kid, private_key FROM auth_signing_keys`); err != nil || len(keys) == 0 {
		t.Fatalf("signing keys: %v %v", keys, err)
	}
	for _, k := range keys {
		if _, err := newBox.Open(k.PrivateKey, []byte(k.Kid)); err != nil {
			t.Fatalf("signing key %s does not open under the new key", k.Kid)
		}
	}
	// A server with the new key opens its signing key and signs tokens that work.
	next := testkit.NewEnv(t, testkit.WithDB(db), testkit.WithConfig(func(c *config.Config) { c.EncryptionKey = newKey }))
	me := next.User(t, org, auth.RoleOrgAdmin)
	got, err := me.API.GetCredentialWithResponse(context.Background(), res.JSON201.Id)
	testkit.Expect(t, got, err, http.StatusOK)

	// The old key is no longer the one in use: nothing opens, nothing changes.
	if err := run(context.Background(), []string{"admin", "rekey", "--new-key", base64.StdEncoding.EncodeToString(make([]byte, 32))}, &out, e); err == nil ||
		!strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("rekey with a key not in use: %v", err)
	}
	var again []byte
	if err := db.Get(&again, `SELECT sealed_secret FROM credentials WHERE id = $1`, res.JSON201.Id); err != nil || !bytes.Equal(again, sealed) {
		t.Fatalf("a failed rekey changed the credential (%v)", err)
	}
	for _, bad := range []string{"", "c2hvcnQ=", "not base64"} {
		if err := run(context.Background(), []string{"admin", "rekey", "--new-key", bad}, &out, e); err == nil {
			t.Errorf("--new-key %q accepted", bad)
		}
	}
}

func box(t *testing.T, key string) *secret.Box {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		t.Fatal(err)
	}
	b, err := secret.NewBox(raw)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
