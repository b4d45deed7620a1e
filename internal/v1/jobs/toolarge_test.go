package jobs_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestTooLargeJobBody: a job body over the limit answers 413 with an ErrorResponse the served Swagger
// 2.0 document allows, which has no way to say that `details` may be null: details are left out.
func TestTooLargeJobBody(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers(), testkit.WithConfig(func(c *config.Config) { c.BodyLimit = "16K" }))
	org := env.Org(t)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	var app uuid.UUID
	if err := env.DB.Get(&app, `INSERT INTO apps (organization_id, name) VALUES ($1, 'big') RETURNING id`, org); err != nil {
		t.Fatal(err)
	}
	body := `{"input": {"text": "` + strings.Repeat("a", 20<<10) + `"}}`
	res, err := admin.V1.SubmitJobWithBodyWithResponse(ctx, app, nil, "application/json", strings.NewReader(body))
	testkit.Expect(t, res, err, http.StatusRequestEntityTooLarge)
	var got struct {
		Error map[string]json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(res.Body, &got); err != nil {
		t.Fatal(err)
	}
	if d, present := got.Error["details"]; present && string(d) == "null" {
		t.Fatalf("413 carries details: null: %s", res.Body)
	}
	if !strings.Contains(string(got.Error["message"]), "LOOPWORK_BODY_LIMIT") {
		t.Fatalf("413 does not name the setting: %s", res.Body)
	}
}
