package models_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestModelsFromConfiguration: configured endpoints are grouped per model with their regions,
// locations and providers; the built-in model is always there; the region filter keeps its own.
func TestModelsFromConfiguration(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers(), testkit.WithConfig(func(c *config.Config) {
		c.Models = `[{"model": "gpt-4o-mini", "provider": "openai", "region": "global", "location": "us", "base_url": "https://api.openai.com/v1"},
			{"model": "gpt-4o-mini", "provider": "azure", "region": "eu", "location": "swedencentral"},
			{"model": "llama3", "provider": "ollama", "region": "eu", "location": "fra"}]`
	}))
	c := env.User(t, env.Org(t), auth.RoleIntegration)
	res, err := c.API.ListModelsWithResponse(context.Background(), nil)
	testkit.Expect(t, res, err, http.StatusOK)
	m := res.JSON200.Models
	if res.JSON200.Count != 3 || m[0].ModelName != "gpt-4o-mini" || m[0].EndpointCount != 2 || len(m[0].Regions) != 2 ||
		len(m[0].Providers) != 2 || m[1].ModelName != "llama3" || m[2].ModelName != "loopwork-builtin" {
		t.Fatalf("models %s", res.Body)
	}
	eu, err := c.API.ListModelsWithResponse(context.Background(), &platformapi.ListModelsParams{Region: new(platformapi.Region("eu"))})
	testkit.Expect(t, eu, err, http.StatusOK)
	if eu.JSON200.Count != 2 || eu.JSON200.Models[0].EndpointCount != 1 || eu.JSON200.Models[0].Providers[0] != "azure" {
		t.Fatalf("eu %s", eu.Body)
	}
	bad, err := c.API.ListModelsWithResponse(context.Background(), &platformapi.ListModelsParams{Region: new(platformapi.Region("mars"))})
	testkit.Expect(t, bad, err, http.StatusUnprocessableEntity)
	anon, _ := env.Clients(t, "")
	unauth, err := anon.ListModelsWithResponse(context.Background(), nil)
	testkit.Expect(t, unauth, err, http.StatusUnauthorized)
}

func TestModelsSettingIsChecked(t *testing.T) {
	for _, v := range []string{`{}`, `[{"model": "m"}]`, `[{"model": "m", "provider": "p", "region": "mars"}]`, `[{"model": "m", "provider": "p", "colour": 1}]`} {
		if _, err := (config.Config{Models: v}).ModelEndpoints(); err == nil {
			t.Errorf("LOOPWORK_MODELS=%s accepted", v)
		}
	}
}
