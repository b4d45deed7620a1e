package integrations_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestCatalog: the catalog is ordered by category then name, pages and filters, and its ids are stable.
func TestCatalog(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	c := env.User(t, env.Org(t), auth.RoleIntegration)

	res, err := c.API.ListIntegrationCatalogWithResponse(ctx, &platformapi.ListIntegrationCatalogParams{Limit: new(100)})
	testkit.Expect(t, res, err, http.StatusOK)
	all := res.JSON200.Items
	if res.JSON200.Total != len(all) || len(all) < 15 {
		t.Fatalf("total %d, items %d", res.JSON200.Total, len(all))
	}
	for i := 1; i < len(all); i++ {
		a, b := all[i-1], all[i]
		if a.Category > b.Category || (a.Category == b.Category && a.Name >= b.Name) {
			t.Fatalf("out of order: %s/%s before %s/%s", a.Category, a.Name, b.Category, b.Name)
		}
	}
	var sqlq platformapi.IntegrationCatalogResponse
	for _, e := range all {
		if e.Name == "sql_query" {
			sqlq = e
		}
	}
	if sqlq.Category != "database" || sqlq.CredentialProviders == nil || len(*sqlq.CredentialProviders) != 2 ||
		(*sqlq.CredentialProviders)[0].Name != "sql_database" || len(sqlq.CredentialTypes) != 1 {
		t.Fatalf("sql_query entry: %+v", sqlq)
	}

	page2, err := c.API.ListIntegrationCatalogWithResponse(ctx, &platformapi.ListIntegrationCatalogParams{Page: new(2), Limit: new(3)})
	testkit.Expect(t, page2, err, http.StatusOK)
	if len(page2.JSON200.Items) != 3 || page2.JSON200.Items[0].Id != all[3].Id || page2.JSON200.Total != len(all) {
		t.Fatalf("page 2: %+v", page2.JSON200)
	}
	db, err := c.API.ListIntegrationCatalogWithResponse(ctx, &platformapi.ListIntegrationCatalogParams{Category: new(platformapi.Database)})
	testkit.Expect(t, db, err, http.StatusOK)
	for _, e := range db.JSON200.Items {
		if e.Category != "database" {
			t.Fatalf("category filter let %s through", e.Category)
		}
	}
	bad, err := c.API.ListIntegrationCatalogWithResponse(ctx, &platformapi.ListIntegrationCatalogParams{Category: new(platformapi.IntegrationCategory("fax"))})
	testkit.Expect(t, bad, err, http.StatusUnprocessableEntity)

	one, err := c.API.GetIntegrationCatalogEntryWithResponse(ctx, sqlq.Id)
	testkit.Expect(t, one, err, http.StatusOK)
	if one.JSON200.Name != "sql_query" {
		t.Fatalf("got %s", one.JSON200.Name)
	}
	missing, err := c.API.GetIntegrationCatalogEntryWithResponse(ctx, uuid.New())
	testkit.Expect(t, missing, err, http.StatusNotFound)

	anon, _ := env.Clients(t, "")
	unauth, err := anon.ListIntegrationCatalogWithResponse(ctx, nil)
	testkit.Expect(t, unauth, err, http.StatusUnauthorized)
}
