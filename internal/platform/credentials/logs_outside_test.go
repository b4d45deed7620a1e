package credentials_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/secret"
	"github.com/loopwork/loopwork/internal/testkit"
)

// outsideSecrets uses secrets where loopwork reaches outside services with them, failing where it can,
// and answers the secrets that must not be logged.
func outsideSecrets(t *testing.T, api *platformapi.ClientWithResponses, db *sqlx.DB) []string {
	t.Helper()
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := l.Addr().(*net.TCPAddr).Port
	l.Close()
	sqlPW, smtpPW, apiKey := newSecret(), newSecret(), newSecret()

	reg, err := api.CreateSqlDatabaseWithResponse(ctx, platformapi.SqlDatabaseCreateRequest{Host: "127.0.0.1",
		Port: strconv.Itoa(closed), Username: "u", Password: &sqlPW, Database: "d"})
	testkit.Expect(t, reg, err, http.StatusCreated)
	tested, err := api.TestSqlDatabaseConnectionWithResponse(ctx, reg.JSON201.Id)
	testkit.Expect(t, tested, err, http.StatusOK)

	mail := map[string]any{"host": "127.0.0.1", "port": closed, "username": "u", "password": smtpPW}
	mc, err := api.CreateCredentialWithResponse(ctx, platformapi.CredentialCreateRequest{Name: "mail", Provider: "email_service",
		CredentialType: "user_password", Data: &mail})
	testkit.Expect(t, mc, err, http.StatusCreated)
	key := map[string]any{"api_key": apiKey}
	kc, err := api.CreateCredentialWithResponse(ctx, platformapi.CredentialCreateRequest{Name: "key", Provider: "vendor_b",
		CredentialType: "api_key", Data: &key})
	testkit.Expect(t, kc, err, http.StatusCreated)
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusForbidden)
	}))
	defer failing.Close()

	doc := testkit.ImportCSV(t, api, "people", "name\nann\n")
	if doc.Status != platformapi.DocumentFileStatusReady {
		t.Fatalf("import: %+v", doc)
	}

	def := fmt.Sprintf(`{"version": 1, "edges": [], "tasks": [
		{"name": "q", "type": "sql_query", "parameters": {"database_id": %q, "query": "SELECT * FROM people"}},
		{"name": "bad", "type": "sql_query", "parameters": {"database_id": %q, "query": "SELECT 1"}},
		{"name": "call", "type": "http_request", "parameters": {"url": %q, "credential_id": %q}}]}`,
		doc.Id, reg.JSON201.Id, failing.URL, kc.JSON201.Id)
	flow, err := api.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "f", Definition: json.RawMessage(def)})
	testkit.Expect(t, flow, err, http.StatusCreated)
	integ, err := api.CreateIntegrationWithResponse(ctx, platformapi.IntegrationCreateRequest{FlowId: flow.JSON201.Id,
		CredentialId: &mc.JSON201.Id, TaskName: "call", Description: "mail"})
	testkit.Expect(t, integ, err, http.StatusCreated)
	meta, err := api.GetIntegrationMetadataWithResponse(ctx, integ.JSON201.Id)
	testkit.Expect(t, meta, err, http.StatusBadGateway)
	x, err := api.StartFlowExecutionWithResponse(ctx, platformapi.FlowExecutionCreateRequest{FlowId: flow.JSON201.Id, Input: map[string]any{}})
	testkit.Expect(t, x, err, http.StatusCreated)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got, err := api.GetFlowExecutionWithResponse(ctx, x.JSON201.Id, nil)
		testkit.Expect(t, got, err, http.StatusOK)
		if s := got.JSON200.Status; s == "completed" || s == "failed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the execution did not end")
		}
	}

	var org uuid.UUID
	var sealed []byte
	if err := db.QueryRow(`SELECT organization_id, sealed_password FROM document_databases`).Scan(&org, &sealed); err != nil {
		t.Fatal(err)
	}
	raw, _ := base64.StdEncoding.DecodeString(testkit.EncryptionKey)
	box, _ := secret.NewBox(raw)
	rolePW, err := box.Open(sealed, org[:])
	if err != nil {
		t.Fatal(err)
	}
	return []string{sqlPW, smtpPW, apiKey, string(rolePW)}
}
