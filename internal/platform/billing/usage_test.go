package billing_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestRecordUsage: integration, org_admin and backoffice record usage of their organization's flow
// executions in any status; the cost defaults to amount times the rate, is null without a rate and
// is overridden by estimated_cost. app_user gets 403, no credentials 401, invalid bodies 422.
func TestRecordUsage(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	staff := env.User(t, env.Org(t), auth.RoleBackoffice)
	worker := env.KeyCaller(t, org, auth.RoleIntegration)
	exec := flowExecution(t, env, org, "running")
	rated := addProduct(t, staff, uniqueName("rated"), new(0.25))
	unrated := addProduct(t, staff, uniqueName("unrated"), nil)

	res := record(t, worker, "", platformapi.CreateUsageRequest{FlowExecutionId: exec, ProductId: rated.Id, Amount: 6,
		Metadata: &map[string]any{"task": "extract"}})
	wantStatus(t, "record", res.StatusCode(), res.Body, http.StatusCreated)
	u := res.JSON201
	if u.OrganizationId != org || u.FlowExecutionId == nil || *u.FlowExecutionId != exec || u.ProductId != rated.Id || u.ProductName != rated.Name ||
		u.Unit != "token" || u.Amount != 6 || u.EstimatedCost == nil || *u.EstimatedCost != 1.5 ||
		u.ModifiedBy != worker.UserID.String() || u.Metadata == nil || (*u.Metadata)["task"] != "extract" ||
		!u.UpdatedAt.Equal(u.CreatedAt) {
		t.Fatalf("recorded %+v", u)
	}
	if u := mustRecord(t, worker, exec, unrated.Id, 3); u.EstimatedCost != nil {
		t.Fatalf("cost without a rate %v, want null", *u.EstimatedCost)
	}
	res = record(t, worker, "", platformapi.CreateUsageRequest{FlowExecutionId: exec, ProductId: rated.Id, Amount: 6,
		EstimatedCost: new(0.0)})
	wantStatus(t, "explicit cost", res.StatusCode(), res.Body, http.StatusCreated)
	if c := res.JSON201.EstimatedCost; c == nil || *c != 0 {
		t.Fatalf("explicit cost %v, want 0", c)
	}
	// Flow executions in any status, deleted ones included, take usage; so do org_admin and backoffice
	// (for their own organization's executions).
	mustRecord(t, env.User(t, org, auth.RoleOrgAdmin), flowExecution(t, env, org, "deleted"), unrated.Id, 1)
	mustRecord(t, staff, flowExecution(t, env, staff.OrgID, "failed"), unrated.Id, 1)

	res = record(t, env.User(t, org, auth.RoleAppUser), "", platformapi.CreateUsageRequest{FlowExecutionId: exec,
		ProductId: rated.Id, Amount: 1})
	wantStatus(t, "app_user", res.StatusCode(), res.Body, http.StatusForbidden)
	res = record(t, &testkit.Caller{API: env.API}, "", platformapi.CreateUsageRequest{FlowExecutionId: exec,
		ProductId: rated.Id, Amount: 1})
	wantStatus(t, "anonymous", res.StatusCode(), res.Body, http.StatusUnauthorized)
	for name, body := range map[string]string{
		"zero amount":        `{"flow_execution_id": "` + exec.String() + `", "product_id": "` + rated.Id.String() + `", "amount": 0}`,
		"missing execution":  `{"product_id": "` + rated.Id.String() + `", "amount": 1}`,
		"malformed product":  `{"flow_execution_id": "` + exec.String() + `", "product_id": "p-1", "amount": 1}`,
		"negative cost":      `{"flow_execution_id": "` + exec.String() + `", "product_id": "` + rated.Id.String() + `", "amount": 1, "estimated_cost": -1}`,
		"metadata not a map": `{"flow_execution_id": "` + exec.String() + `", "product_id": "` + rated.Id.String() + `", "amount": 1, "metadata": [1]}`,
	} {
		res, err := worker.API.RecordUsageWithBodyWithResponse(ctx, nil, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, name, res.StatusCode(), res.Body, http.StatusUnprocessableEntity)
	}
	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM usage_records WHERE organization_id = $1`, org); err != nil || n != 4 {
		t.Fatalf("%d usage records (%v), want 4", n, err)
	}
}

// TestRecordUsageNotFound: another organization's flow execution is answered exactly like an unknown
// one, 404 naming flow_execution_id; an unknown product is 404 naming product_id. Nothing is recorded.
func TestRecordUsageNotFound(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	staff := env.User(t, env.Org(t), auth.RoleBackoffice)
	worker := env.KeyCaller(t, org, auth.RoleIntegration)
	product := addProduct(t, staff, uniqueName("p"), nil)
	mine, theirs := flowExecution(t, env, org, "running"), flowExecution(t, env, other, "running")

	res := record(t, worker, "", platformapi.CreateUsageRequest{FlowExecutionId: theirs, ProductId: product.Id, Amount: 1})
	wantError(t, "another organization's execution", res.StatusCode(), res.Body, http.StatusNotFound, "not_found")
	foreign := errorDetail(t, res.Body)
	if !strings.Contains(foreign, `"flow_execution_id"`) {
		t.Fatalf("details do not name the field: %s", res.Body)
	}
	res = record(t, worker, "", platformapi.CreateUsageRequest{FlowExecutionId: uuid.New(), ProductId: product.Id, Amount: 1})
	wantError(t, "unknown execution", res.StatusCode(), res.Body, http.StatusNotFound, "not_found")
	if d := errorDetail(t, res.Body); d != foreign {
		t.Fatalf("unknown execution answers %s, another organization's %s", d, foreign)
	}
	// Backoffice records only for its own organization too.
	res = record(t, staff, "", platformapi.CreateUsageRequest{FlowExecutionId: mine, ProductId: product.Id, Amount: 1})
	wantError(t, "backoffice, another organization's execution", res.StatusCode(), res.Body, http.StatusNotFound, "not_found")

	res = record(t, worker, "", platformapi.CreateUsageRequest{FlowExecutionId: mine, ProductId: uuid.New(), Amount: 1})
	wantError(t, "unknown product", res.StatusCode(), res.Body, http.StatusNotFound, "not_found")
	if d := errorDetail(t, res.Body); !strings.Contains(d, `"product_id"`) {
		t.Fatalf("details do not name the field: %s", res.Body)
	}
	var n int
	if err := env.DB.Get(&n, `SELECT count(*) FROM usage_records`); err != nil || n != 0 {
		t.Fatalf("%d usage records (%v), want none", n, err)
	}
	if b := balance(t, worker, nil); *b.CreditsConsumed != 0 {
		t.Fatalf("refused usage consumed credits: %+v", b)
	}
}

// TestRecordUsageIdempotent: a repeat under the same Idempotency-Key, however the body is spelled,
// records nothing and answers 200 with the first record; another body under the key is 409
// idempotency_key_reused; keys are per organization and expire after 24 hours.
func TestRecordUsageIdempotent(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, other := env.Org(t), env.Org(t)
	staff := env.User(t, env.Org(t), auth.RoleBackoffice)
	worker := env.KeyCaller(t, org, auth.RoleIntegration)
	otherWorker := env.KeyCaller(t, other, auth.RoleIntegration)
	product := addProduct(t, staff, uniqueName("p"), new(2.0))
	exec := flowExecution(t, env, org, "running")
	key := "task-7:" + uuid.NewString()

	body := platformapi.CreateUsageRequest{FlowExecutionId: exec, ProductId: product.Id, Amount: 4,
		Metadata: &map[string]any{"a": 1, "b": "x"}}
	first := record(t, worker, key, body)
	wantStatus(t, "first", first.StatusCode(), first.Body, http.StatusCreated)

	// The same usage with keys in another order, other white space and an explicit null.
	raw := `{ "metadata": {"b": "x", "a": 1.0}, "amount": 4, "estimated_cost": null,
		"product_id": "` + product.Id.String() + `", "flow_execution_id": "` + exec.String() + `" }`
	again, err := worker.API.RecordUsageWithBodyWithResponse(ctx, &platformapi.RecordUsageParams{IdempotencyKey: &key},
		"application/json", strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "replay", again.StatusCode(), again.Body, http.StatusOK)
	a, f := again.JSON200, first.JSON201
	if a.Id != f.Id || !a.CreatedAt.Equal(f.CreatedAt) || a.Amount != 4 || *a.EstimatedCost != 8 {
		t.Fatalf("replay %+v, first %+v", a, f)
	}
	if b := balance(t, worker, nil); *b.CreditsConsumed != 4 {
		t.Fatalf("a replay consumed credits again: %+v", b)
	}

	changed := body
	changed.Amount = 5
	res := record(t, worker, key, changed)
	wantError(t, "same key, other body", res.StatusCode(), res.Body, http.StatusConflict, "idempotency_key_reused")

	// Another organization's worker may use the same key for its own usage.
	res = record(t, otherWorker, key, platformapi.CreateUsageRequest{FlowExecutionId: flowExecution(t, env, other, "running"),
		ProductId: product.Id, Amount: 4})
	wantStatus(t, "same key, other organization", res.StatusCode(), res.Body, http.StatusCreated)
	// A different key records again.
	res = record(t, worker, key+"-2", body)
	wantStatus(t, "other key", res.StatusCode(), res.Body, http.StatusCreated)

	// After 24 hours the key is released: the request is recorded anew, even with another body.
	if _, err := env.DB.Exec(`UPDATE usage_records SET created_at = now() - interval '25 hours' WHERE id = $1`, f.Id); err != nil {
		t.Fatal(err)
	}
	res = record(t, worker, key, changed)
	wantStatus(t, "expired key", res.StatusCode(), res.Body, http.StatusCreated)
	if res.JSON201.Id == f.Id || res.JSON201.Amount != 5 {
		t.Fatalf("expired key answered %+v", res.JSON201)
	}
	if b := balance(t, worker, nil); *b.CreditsConsumed != 13 {
		t.Fatalf("consumed %d, want 4+4+5", *b.CreditsConsumed)
	}
	// The stored request hash is the SHA-256 of the canonical body.
	var hash []byte
	canonical, _ := json.Marshal(changed)
	want := sha256.Sum256(canonical)
	if err := env.DB.Get(&hash, `SELECT request_hash FROM usage_records WHERE id = $1`, res.JSON201.Id); err != nil ||
		!bytes.Equal(hash, want[:]) {
		t.Fatalf("request hash %x (%v), want %x", hash, err, want)
	}
}
