package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
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

// TestDocsPagesTakeAnyQuery opens the addresses the pages themselves write: ReDoc's interface links and
// Swagger UI's address after another definition is chosen. Their scripts read the query, so the server
// must serve the page whatever it holds; other operations still refuse undeclared parameters.
func TestDocsPagesTakeAnyQuery(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	_, redoc := get(t, env, "/api/redoc")
	link := regexp.MustCompile(`href="(\?spec=[^"]+)"`).FindAllSubmatch(redoc, -1)
	if len(link) != 2 {
		t.Fatalf("ReDoc page links %d interfaces, want 2", len(link))
	}
	paths := []string{"/api/docs?urls.primaryName=" + url.QueryEscape("/v1 — apps and jobs"), "/api/docs?anything=1&x",
		"/api/redoc?spec=/v1/openapi.json", "/api/redoc?spec=%2Fapi%2Fopenapi.json&theme=dark"}
	for _, m := range link {
		paths = append(paths, "/api/redoc"+html.UnescapeString(string(m[1])))
	}
	for _, p := range paths {
		if res, body := get(t, env, p); res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: %d %s %.200s", p, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	}
	if res, err := http.Get(env.URL + "/health/liveness?spec=x"); err != nil || res.StatusCode != 422 {
		t.Errorf("an undeclared parameter elsewhere: %v %v, want 422", err, res)
	}
}

// TestDocsAssetsStayOnTheServer: the vendor bundles as embedded name no CDN file the pages would load.
func TestDocsAssetsStayOnTheServer(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	res, body := get(t, env, "/api/docs/assets/redoc.standalone.js")
	if res.StatusCode != 200 || bytes.Contains(body, []byte("cdn.redoc.ly")) {
		t.Fatalf("redoc.standalone.js: %d, still loads its logo from cdn.redoc.ly", res.StatusCode)
	}
	for _, logo := range []string{"redocly-logo-mini.svg", "redocly-logo-mini-full.svg"} {
		if !bytes.Contains(body, []byte(docsAssets+logo)) {
			t.Errorf("the bundle does not point at %s", logo)
		}
		if res, b := get(t, env, docsAssets+logo); res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/svg+xml" || !bytes.HasPrefix(b, []byte("<svg")) {
			t.Errorf("%s: %d %s", logo, res.StatusCode, res.Header.Get("Content-Type"))
		}
	}
}

const docsAssets = "/api/docs/assets/"
