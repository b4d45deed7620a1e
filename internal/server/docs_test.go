package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/testkit"
)

func get(t *testing.T, env *testkit.Env, path string) (*http.Response, []byte) {
	t.Helper()
	res, err := env.HTTP.Get(env.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

// TestRootLinksAreReal follows every link the root response hands out.
func TestRootLinksAreReal(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	root, err := env.API.GetRootWithResponse(context.Background())
	if err != nil || root.StatusCode() != 200 {
		t.Fatalf("root: %v", err)
	}
	r := root.JSON200
	if r.Api.Prefix != "/api" || r.Api.BaseUrl != env.URL+"/api" || r.Version == "" {
		t.Fatalf("root api info: %+v version %q", r.Api, r.Version)
	}
	for _, link := range []string{r.Documentation.Openapi, r.Documentation.Redoc, r.Documentation.OpenapiJson,
		r.Documentation.Interactive, r.Health.Liveness, r.Health.Readiness, r.Health.Detailed} {
		if res, _ := get(t, env, link); res.StatusCode != 200 {
			t.Errorf("root link %s answers %d", link, res.StatusCode)
		}
	}
}

// TestDocsWorkOffline checks that both pages load every asset from the server itself and offer both
// interfaces, and that the three documents are served as embedded.
func TestDocsWorkOffline(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	assetRef := regexp.MustCompile(`(?:src|href)="([^"]+)"`)
	for _, page := range []string{"/api/docs", "/api/redoc"} {
		res, body := get(t, env, page)
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("%s: %d %s", page, res.StatusCode, res.Header.Get("Content-Type"))
		}
		for _, want := range []string{"/api/openapi.json", "/v1/openapi.json"} {
			if !bytes.Contains(body, []byte(want)) {
				t.Errorf("%s does not offer %s", page, want)
			}
		}
		refs := assetRef.FindAllSubmatch(body, -1)
		if len(refs) < 2 {
			t.Fatalf("%s references no assets", page)
		}
		for _, m := range refs {
			ref := string(m[1])
			if strings.HasPrefix(ref, "http") || strings.HasPrefix(ref, "//") {
				t.Errorf("%s loads %s from outside the server", page, ref)
				continue
			}
			if strings.HasPrefix(ref, "?") {
				continue
			}
			if res, b := get(t, env, ref); res.StatusCode != 200 || len(b) == 0 {
				t.Errorf("%s: asset %s answers %d", page, ref, res.StatusCode)
			}
		}
	}

	docs := []struct {
		path    string
		want    []byte
		version string
		key     string
	}{
		{"/api/openapi.json", platformapi.OpenAPIJSON, "3.0.3", "openapi"},
		{"/v1/openapi.json", v1api.OpenAPIJSON, "3.0.3", "openapi"},
		{"/v1/swagger.json", v1api.SwaggerJSON, "2.0", "swagger"},
	}
	for _, d := range docs {
		res, body := get(t, env, d.path)
		if res.StatusCode != 200 || !bytes.Equal(body, d.want) {
			t.Fatalf("%s: %d, %d bytes (embedded %d)", d.path, res.StatusCode, len(body), len(d.want))
		}
		var head map[string]any
		if err := json.Unmarshal(body, &head); err != nil || head[d.key] != d.version {
			t.Fatalf("%s: %s = %v, want %s (%v)", d.path, d.key, head[d.key], d.version, err)
		}
	}
}
