package billing_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

// wantStatus fails the test unless the response has the status.
func wantStatus(t *testing.T, what string, status int, body []byte, want int) {
	t.Helper()
	if status != want {
		t.Fatalf("%s: status %d, want %d: %s", what, status, want, body)
	}
}

// wantError checks the status and the error code of an ErrorResponse body.
func wantError(t *testing.T, what string, status int, body []byte, want int, code string) {
	t.Helper()
	wantStatus(t, what, status, body, want)
	var e platformapi.ErrorResponse
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("%s: %v: %s", what, err, body)
	}
	if e.Error.Code == nil || *e.Error.Code != code {
		t.Fatalf("%s: code %v, want %s: %s", what, e.Error.Code, code, body)
	}
}

// errorDetail returns an ErrorResponse's error object without the request id, to compare two answers.
func errorDetail(t *testing.T, body []byte) string {
	t.Helper()
	var e platformapi.ErrorResponse
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	b, _ := json.Marshal(e.Error)
	return string(b)
}

// flowExecution creates a flow, its version 1 and one execution of it for org, in the given status.
func flowExecution(t *testing.T, env *testkit.Env, org uuid.UUID, status string) uuid.UUID {
	t.Helper()
	var flow, exec uuid.UUID
	if err := env.DB.Get(&flow, `INSERT INTO flows (organization_id, executions_started) VALUES ($1, 1) RETURNING id`, org); err != nil {
		t.Fatal(err)
	}
	if _, err := env.DB.Exec(`INSERT INTO flow_versions (flow_id, version, organization_id, display_name, definition)
		VALUES ($1, 1, $2, 'test flow', '{"tasks": []}')`, flow, org); err != nil {
		t.Fatal(err)
	}
	if err := env.DB.Get(&exec, `INSERT INTO flow_executions (organization_id, flow_id, flow_version, status, run_number)
		VALUES ($1, $2, 1, $3, 1) RETURNING id`, org, flow, status); err != nil {
		t.Fatal(err)
	}
	return exec
}

// addProduct creates a product through the API and fails the test unless it answers 201.
func addProduct(t *testing.T, c *testkit.Caller, name string, rate *float64) platformapi.ProductResponse {
	t.Helper()
	res, err := c.API.AddProductWithResponse(ctx, platformapi.CreateProductRequest{Name: name, Unit: "token",
		Provider: "openai", EstimatedCostPerUnit: rate})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "add product "+name, res.StatusCode(), res.Body, http.StatusCreated)
	return *res.JSON201
}

// uniqueName returns a product name no other test uses.
func uniqueName(prefix string) string { return prefix + "-" + strings.ToLower(uuid.NewString()[:8]) }

// record records usage through the API (optionally under an idempotency key) and returns the response.
func record(t *testing.T, c *testkit.Caller, key string, body platformapi.CreateUsageRequest) *platformapi.RecordUsageResponse {
	t.Helper()
	params := &platformapi.RecordUsageParams{}
	if key != "" {
		params.IdempotencyKey = &key
	}
	res, err := c.API.RecordUsageWithResponse(ctx, params, body)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// mustRecord records usage and fails the test unless it answers 201.
func mustRecord(t *testing.T, c *testkit.Caller, exec, product uuid.UUID, amount int64) platformapi.UsageRecordResponse {
	t.Helper()
	res := record(t, c, "", platformapi.CreateUsageRequest{FlowExecutionId: exec, ProductId: product, Amount: amount})
	wantStatus(t, "record usage", res.StatusCode(), res.Body, http.StatusCreated)
	return *res.JSON201
}

// grant grants credits as c and fails the test unless it answers 201.
func grant(t *testing.T, c *testkit.Caller, org uuid.UUID, amount int64) platformapi.CreditGrantResponse {
	t.Helper()
	res, err := c.API.GrantCreditsWithResponse(ctx, org, platformapi.CreateCreditGrantRequest{Amount: amount})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "grant", res.StatusCode(), res.Body, http.StatusCreated)
	return *res.JSON201
}

// balance reads a balance as c, optionally naming an organization, and fails unless it answers 200.
func balance(t *testing.T, c *testkit.Caller, org *uuid.UUID) platformapi.CreditBalanceResponse {
	t.Helper()
	res, err := c.API.GetCreditBalanceWithResponse(ctx, &platformapi.GetCreditBalanceParams{OrganizationId: org})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "balance", res.StatusCode(), res.Body, http.StatusOK)
	return *res.JSON200
}
