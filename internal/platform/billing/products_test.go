package billing_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestProductCatalogue: backoffice adds products (names unique case-insensitively, trimmed, never
// blank); every role reads and lists them, sorted by name, paged, filtered by provider; other roles
// may not add.
func TestProductCatalogue(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	staff := env.User(t, env.Org(t), auth.RoleBackoffice)
	user := env.User(t, org, auth.RoleAppUser)

	res, err := staff.API.AddProductWithResponse(ctx, platformapi.CreateProductRequest{Name: "  GPT-4o input tokens ",
		Unit: "token", Provider: "openai", Description: new("Prompt tokens"), EstimatedCostPerUnit: new(0.0000025),
		Metadata: &map[string]any{"model": "gpt-4o"}})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "add", res.StatusCode(), res.Body, http.StatusCreated)
	p := res.JSON201
	if p.Name != "GPT-4o input tokens" || p.Unit != "token" || p.Provider != "openai" || p.Description == nil ||
		*p.Description != "Prompt tokens" || p.EstimatedCostPerUnit == nil || *p.EstimatedCostPerUnit != 0.0000025 ||
		p.Metadata == nil || (*p.Metadata)["model"] != "gpt-4o" {
		t.Fatalf("added product %+v", p)
	}
	var by string
	if err := env.DB.Get(&by, `SELECT modified_by FROM products WHERE id = $1`, p.Id); err != nil || by != staff.UserID.String() {
		t.Fatalf("modified_by %q (%v)", by, err)
	}
	pages := addProduct(t, staff, "document pages", nil)
	if _, err := env.DB.Exec(`UPDATE products SET provider = 'vendor_a' WHERE id = $1`, pages.Id); err != nil {
		t.Fatal(err)
	}

	got, err := user.API.GetProductWithResponse(ctx, p.Id)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "get", got.StatusCode(), got.Body, http.StatusOK)
	if got.JSON200.Id != p.Id || got.JSON200.Name != p.Name {
		t.Fatalf("got %+v", got.JSON200)
	}
	got, err = user.API.GetProductWithResponse(ctx, uuid.New())
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, "get unknown", got.StatusCode(), got.Body, http.StatusNotFound, "not_found")

	list := func(params platformapi.ListProductsParams) platformapi.ProductListResponse {
		t.Helper()
		res, err := user.API.ListProductsWithResponse(ctx, &params)
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, "list", res.StatusCode(), res.Body, http.StatusOK)
		return *res.JSON200
	}
	// The built-in job-submission and llm-call products are in every database: four products, sorted
	// by name case-insensitively.
	all := list(platformapi.ListProductsParams{})
	if all.Total != 4 || len(all.Products) != 4 || all.Products[0].Id != pages.Id || all.Products[1].Id != p.Id ||
		all.Products[2].Id != credits.JobSubmissionProduct || all.Products[3].Id != credits.LLMCallProduct {
		t.Fatalf("products %+v", all)
	}
	if l := list(platformapi.ListProductsParams{Page: new(2), Limit: new(3)}); l.Total != 4 || len(l.Products) != 1 ||
		l.Products[0].Id != credits.LLMCallProduct || l.Page != 2 || l.Limit != 3 {
		t.Fatalf("page 2 %+v", l)
	}
	if l := list(platformapi.ListProductsParams{Provider: new("vendor_a")}); l.Total != 1 || l.Products[0].Id != pages.Id {
		t.Fatalf("vendor_a products %+v", l)
	}
	if l := list(platformapi.ListProductsParams{Provider: new("VENDOR_A")}); l.Total != 0 || len(l.Products) != 0 {
		t.Fatalf("provider is an exact match: %+v", l)
	}

	for _, c := range []struct {
		name string
		body platformapi.CreateProductRequest
		want int
		code string
	}{
		{"taken name in another case", platformapi.CreateProductRequest{Name: "gpt-4O INPUT tokens", Unit: "token", Provider: "x"},
			http.StatusConflict, "conflict"},
		{"blank name", platformapi.CreateProductRequest{Name: "   ", Unit: "token", Provider: "x"}, http.StatusUnprocessableEntity, ""},
		{"blank unit", platformapi.CreateProductRequest{Name: uniqueName("p"), Unit: " ", Provider: "x"}, http.StatusUnprocessableEntity, ""},
		{"empty provider", platformapi.CreateProductRequest{Name: uniqueName("p"), Unit: "call"}, http.StatusUnprocessableEntity, ""},
		{"negative rate", platformapi.CreateProductRequest{Name: uniqueName("p"), Unit: "call", Provider: "x",
			EstimatedCostPerUnit: new(-1.0)}, http.StatusUnprocessableEntity, ""},
		{"name too long", platformapi.CreateProductRequest{Name: strings.Repeat("n", 201), Unit: "call", Provider: "x"},
			http.StatusUnprocessableEntity, ""},
	} {
		res, err := staff.API.AddProductWithResponse(ctx, c.body)
		if err != nil {
			t.Fatal(err)
		}
		if c.code != "" {
			wantError(t, c.name, res.StatusCode(), res.Body, c.want, c.code)
		} else {
			wantStatus(t, c.name, res.StatusCode(), res.Body, c.want)
		}
	}
	for _, c := range []struct {
		name   string
		caller *testkit.Caller
		want   int
	}{
		{"org_admin", env.User(t, org, auth.RoleOrgAdmin), http.StatusForbidden},
		{"app_user", user, http.StatusForbidden},
		{"anonymous", &testkit.Caller{API: env.API}, http.StatusUnauthorized},
	} {
		res, err := c.caller.API.AddProductWithResponse(ctx, platformapi.CreateProductRequest{Name: uniqueName("p"),
			Unit: "call", Provider: "x"})
		if err != nil {
			t.Fatal(err)
		}
		wantStatus(t, c.name+" adding", res.StatusCode(), res.Body, c.want)
	}
	lres, err := env.API.ListProductsWithResponse(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "anonymous list", lres.StatusCode(), lres.Body, http.StatusUnauthorized)
	if l := list(platformapi.ListProductsParams{}); l.Total != 4 {
		t.Fatalf("refused additions left %d products", l.Total)
	}
}

// TestEditProduct: omitted fields keep their value, null clears the nullable ones, a taken name is
// 409; a new rate leaves recorded usage's cost alone. Only backoffice may edit.
func TestEditProduct(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	staff := env.User(t, env.Org(t), auth.RoleBackoffice)
	worker := env.KeyCaller(t, org, auth.RoleIntegration)
	taken := addProduct(t, staff, "Taken Name", nil)
	res, err := staff.API.AddProductWithResponse(ctx, platformapi.CreateProductRequest{Name: "pages", Unit: "page",
		Provider: "vendor_a", Description: new("OCR pages"), EstimatedCostPerUnit: new(0.01),
		Metadata: &map[string]any{"tier": "basic"}})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "add", res.StatusCode(), res.Body, http.StatusCreated)
	p := *res.JSON201
	usage := mustRecord(t, worker, flowExecution(t, env, org, "completed"), p.Id, 10)

	edit := func(c *testkit.Caller, id uuid.UUID, body platformapi.UpdateProductRequest) *platformapi.EditProductResponse {
		t.Helper()
		res, err := c.API.EditProductWithResponse(ctx, id, body)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// An empty change returns the product untouched.
	r := edit(staff, p.Id, platformapi.UpdateProductRequest{})
	wantStatus(t, "empty edit", r.StatusCode(), r.Body, http.StatusOK)
	if !r.JSON200.ModifiedAt.Equal(p.ModifiedAt) || r.JSON200.Description == nil {
		t.Fatalf("empty edit changed %+v", r.JSON200)
	}

	r = edit(staff, p.Id, platformapi.UpdateProductRequest{Name: new(" Scanned pages "),
		EstimatedCostPerUnit: nullable.NewNullableWithValue(0.5), Metadata: nullable.NewNullableWithValue(map[string]any{"tier": "pro"})})
	wantStatus(t, "edit", r.StatusCode(), r.Body, http.StatusOK)
	e := r.JSON200
	if e.Name != "Scanned pages" || e.Unit != "page" || e.Provider != "vendor_a" || e.Description == nil ||
		*e.Description != "OCR pages" || e.EstimatedCostPerUnit == nil || *e.EstimatedCostPerUnit != 0.5 ||
		e.Metadata == nil || (*e.Metadata)["tier"] != "pro" || !e.ModifiedAt.After(p.ModifiedAt) {
		t.Fatalf("edited %+v", e)
	}

	r = edit(staff, p.Id, platformapi.UpdateProductRequest{Description: nullable.NewNullNullable[string](),
		EstimatedCostPerUnit: nullable.NewNullNullable[float64](), Metadata: nullable.NewNullNullable[map[string]any]()})
	wantStatus(t, "clear", r.StatusCode(), r.Body, http.StatusOK)
	if e := r.JSON200; e.Description != nil || e.EstimatedCostPerUnit != nil || e.Metadata != nil || e.Name != "Scanned pages" {
		t.Fatalf("cleared %+v", e)
	}
	var cost float64
	if err := env.DB.Get(&cost, `SELECT estimated_cost FROM usage_records WHERE id = $1`, usage.Id); err != nil ||
		usage.EstimatedCost == nil || cost != 0.1 || *usage.EstimatedCost != 0.1 {
		t.Fatalf("recorded cost %v / %v (%v), want 0.1 kept", cost, usage.EstimatedCost, err)
	}

	r = edit(staff, p.Id, platformapi.UpdateProductRequest{Name: new("TAKEN name")})
	wantError(t, "taken name", r.StatusCode(), r.Body, http.StatusConflict, "conflict")
	r = edit(staff, taken.Id, platformapi.UpdateProductRequest{Name: new("taken NAME")})
	wantStatus(t, "renaming to its own name in another case", r.StatusCode(), r.Body, http.StatusOK)
	r = edit(staff, p.Id, platformapi.UpdateProductRequest{Unit: new("  ")})
	wantStatus(t, "blank unit", r.StatusCode(), r.Body, http.StatusUnprocessableEntity)
	r = edit(staff, p.Id, platformapi.UpdateProductRequest{EstimatedCostPerUnit: nullable.NewNullableWithValue(-0.1)})
	wantStatus(t, "negative rate", r.StatusCode(), r.Body, http.StatusUnprocessableEntity)
	r = edit(staff, uuid.New(), platformapi.UpdateProductRequest{Name: new("ghost")})
	wantError(t, "unknown product", r.StatusCode(), r.Body, http.StatusNotFound, "not_found")
	r = edit(staff, uuid.New(), platformapi.UpdateProductRequest{})
	wantError(t, "unknown product, empty edit", r.StatusCode(), r.Body, http.StatusNotFound, "not_found")
	r = edit(env.User(t, org, auth.RoleOrgAdmin), p.Id, platformapi.UpdateProductRequest{Name: new("mine")})
	wantStatus(t, "org_admin", r.StatusCode(), r.Body, http.StatusForbidden)
	r = edit(&testkit.Caller{API: env.API}, p.Id, platformapi.UpdateProductRequest{Name: new("mine")})
	wantStatus(t, "anonymous", r.StatusCode(), r.Body, http.StatusUnauthorized)

	got, err := staff.API.GetProductWithResponse(ctx, p.Id)
	if err != nil {
		t.Fatal(err)
	}
	if got.JSON200 == nil || got.JSON200.Name != "Scanned pages" || got.JSON200.Unit != "page" {
		t.Fatalf("refused edits changed the product: %s", got.Body)
	}
}

// TestDeleteProduct: an unused product is deleted; one with usage, and the built-in job-submission
// product, answer 409 product_in_use; unknown ids 404; other roles 403.
func TestDeleteProduct(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	staff := env.User(t, env.Org(t), auth.RoleBackoffice)
	unused := addProduct(t, staff, uniqueName("unused"), nil)
	used := addProduct(t, staff, uniqueName("used"), nil)
	mustRecord(t, env.KeyCaller(t, org, auth.RoleIntegration), flowExecution(t, env, org, "completed"), used.Id, 1)

	del := func(c *testkit.Caller, id uuid.UUID) *platformapi.DeleteProductResponse {
		t.Helper()
		res, err := c.API.DeleteProductWithResponse(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	r := del(env.User(t, org, auth.RoleOrgAdmin), unused.Id)
	wantStatus(t, "org_admin", r.StatusCode(), r.Body, http.StatusForbidden)
	r = del(&testkit.Caller{API: env.API}, unused.Id)
	wantStatus(t, "anonymous", r.StatusCode(), r.Body, http.StatusUnauthorized)
	r = del(staff, used.Id)
	wantError(t, "used product", r.StatusCode(), r.Body, http.StatusConflict, "product_in_use")
	r = del(staff, credits.JobSubmissionProduct)
	wantError(t, "built-in product", r.StatusCode(), r.Body, http.StatusConflict, "product_in_use")

	r = del(staff, unused.Id)
	wantStatus(t, "unused product", r.StatusCode(), r.Body, http.StatusNoContent)
	got, err := staff.API.GetProductWithResponse(ctx, unused.Id)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "get deleted", got.StatusCode(), got.Body, http.StatusNotFound)
	r = del(staff, unused.Id)
	wantError(t, "deleted again", r.StatusCode(), r.Body, http.StatusNotFound, "not_found")

	for _, id := range []uuid.UUID{used.Id, credits.JobSubmissionProduct} {
		if got, err := staff.API.GetProductWithResponse(ctx, id); err != nil || got.StatusCode() != http.StatusOK {
			t.Fatalf("product %s after a refused delete: %v %v", id, got.StatusCode(), err)
		}
	}
}
