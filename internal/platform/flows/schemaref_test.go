package flows_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestSchemaRefsStayInside: an llm task's output_schema that refers to the server's files or to a URL
// is refused when the flow is saved, with the location of the $ref, and the answer shows nothing of
// what such a reference names; a reference inside the schema is fine.
func TestSchemaRefsStayInside(t *testing.T) {
	t.Parallel()
	hit := 0
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hit++
		_, _ = w.Write([]byte(`{"type": "string", "description": "FROM-THE-WEB"}`))
	}))
	t.Cleanup(web.Close)
	// Against a real server process: the schema compiler that would load the reference is the binary's.
	env := testkit.NewProcessEnv(t)
	user := env.User(t, env.Org(t), auth.RoleAppUser)
	flow := func(schema string) string {
		return `{"display_name": "refs", "definition": {"version": 1, "tasks": [{"name": "ask", "type": "llm",
			"parameters": {"prompt": "name: Ada", "output_schema": ` + schema + `}}], "edges": []}}`
	}
	for _, c := range []struct{ name, schema, loc string }{
		{"file", `{"type": "object", "properties": {"name": {"$ref": "file:///etc/passwd"}}}`,
			`["body","definition","tasks",0,"parameters","output_schema","properties","name","$ref"]`},
		{"url", `{"$ref": "` + web.URL + `/schema.json"}`,
			`["body","definition","tasks",0,"parameters","output_schema","$ref"]`},
		{"relative to an id", `{"$id": "file:///etc/", "$defs": {"p": {"$ref": "passwd"}}}`,
			`["body","definition","tasks",0,"parameters","output_schema","$defs","p","$ref"]`},
		{"dynamic", `{"items": {"$dynamicRef": "http://169.254.169.254/latest"}}`,
			`["body","definition","tasks",0,"parameters","output_schema","items","$dynamicRef"]`},
	} {
		res, err := user.API.CreateFlowWithBodyWithResponse(ctx, "application/json", strings.NewReader(flow(c.schema)))
		if err != nil {
			t.Fatal(err)
		}
		items := validation(t, res)
		if locString(items[0].Loc) != c.loc || items[0].Type != dsl.KindExternalRef {
			t.Errorf("%s: first problem %s at %s, want %s at %s", c.name, items[0].Type, locString(items[0].Loc), dsl.KindExternalRef, c.loc)
		}
		if body := string(res.Body); strings.Contains(body, "root:") || strings.Contains(body, "FROM-THE-WEB") {
			t.Errorf("%s: the answer shows what the reference names: %s", c.name, body)
		}
	}
	if hit != 0 {
		t.Errorf("the schema's URL was fetched %d times", hit)
	}
	// References inside the schema, and "$ref" as data, are fine.
	inside := `{"$defs": {"n": {"type": "string"}}, "type": "object", "properties": {"name": {"$ref": "#/$defs/n"},
		"kind": {"const": {"$ref": "file:///etc/passwd"}}}}`
	res, err := user.API.CreateFlowWithBodyWithResponse(ctx, "application/json", strings.NewReader(flow(inside)))
	testkit.Expect(t, res, err, http.StatusCreated)
	if n := len(*res.JSON201.ValidationErrors); n != 0 {
		t.Fatalf("a schema that refers inside itself has %d problems: %+v", n, (*res.JSON201.ValidationErrors)[0])
	}
}
