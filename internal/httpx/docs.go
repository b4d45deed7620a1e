package httpx

import (
	"embed"
	"html/template"
	"io/fs"
	"net/http"

	"github.com/labstack/echo/v4"
)

// The documentation pages work offline: Swagger UI and ReDoc are served from files embedded in the
// binary (refreshed with `make docs-assets`, versions pinned in the Makefile), never from a CDN.
//
//go:embed docsassets
var docsAssets embed.FS

// DocsAssetsPrefix is where the embedded files are served.
const DocsAssetsPrefix = "/api/docs/assets/"

// DocSpec is one interface shown in the pages.
type DocSpec struct {
	Name string
	URL  string
}

var swaggerPage = template.Must(template.New("swagger").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>loopwork API — Swagger UI</title>
  <link rel="stylesheet" href="{{.Assets}}swagger-ui.css">
  <link rel="icon" type="image/png" href="{{.Assets}}favicon-32x32.png">
  <style>body{margin:0}</style>
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{{.Assets}}swagger-ui-bundle.js"></script>
  <script src="{{.Assets}}swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      urls: [{{range .Specs}}{url: {{.URL}}, name: {{.Name}}},{{end}}],
      dom_id: "#swagger-ui",
      deepLinking: true,
      persistAuthorization: true,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      plugins: [SwaggerUIBundle.plugins.DownloadUrl],
      layout: "StandaloneLayout"
    });
  </script>
</body>
</html>
`))

var redocPage = template.Must(template.New("redoc").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>loopwork API — reference</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="icon" type="image/png" href="{{.Assets}}favicon-32x32.png">
  <style>body{margin:0} nav.lw{font:14px sans-serif;padding:8px 16px;background:#f4f4f4}</style>
</head>
<body>
  <nav class="lw">Interfaces: {{range .Specs}}<a href="?spec={{.URL}}">{{.Name}}</a> · {{end}}<a href="/api/docs">Swagger UI</a></nav>
  <div id="redoc"></div>
  <script src="{{.Assets}}redoc.standalone.js"></script>
  <script>
    var allowed = [{{range .Specs}}{{.URL}},{{end}}];
    var asked = new URLSearchParams(window.location.search).get("spec");
    Redoc.init(allowed.indexOf(asked) >= 0 ? asked : allowed[0], {}, document.getElementById("redoc"));
  </script>
</body>
</html>
`))

// RegisterDocs serves the pages and their assets. specs lists the interfaces in the order shown.
func RegisterDocs(e *echo.Echo, specs []DocSpec) {
	data := struct {
		Assets string
		Specs  []DocSpec
	}{DocsAssetsPrefix, specs}
	page := func(t *template.Template) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
			c.Response().WriteHeader(http.StatusOK)
			return t.Execute(c.Response(), data)
		}
	}
	e.GET("/api/docs", page(swaggerPage))
	e.GET("/api/redoc", page(redocPage))
	sub, _ := fs.Sub(docsAssets, "docsassets")
	assets := http.StripPrefix(DocsAssetsPrefix, http.FileServer(http.FS(sub)))
	e.GET(DocsAssetsPrefix+"*", func(c echo.Context) error {
		// The files change only with the binary; let browsers keep them for a day.
		c.Response().Header().Set("Cache-Control", "public, max-age=86400")
		assets.ServeHTTP(c.Response(), c.Request())
		return nil
	})
}

// JSONDocument serves an embedded contract as it is.
func JSONDocument(doc []byte) echo.HandlerFunc {
	return func(c echo.Context) error {
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, doc)
	}
}
