package docs

import "html/template"

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
      // The online validator badge would fetch an image from validator.swagger.io: the page stays offline.
      validatorUrl: null,
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
  <script type="module">
    import { init } from "{{.Assets}}redoc.standalone.js";
    const allowed = [{{range .Specs}}{{.URL}},{{end}}];
    const asked = new URLSearchParams(window.location.search).get("spec");
    // ReDoc reports usage to its vendor unless told not to; the page makes no request off this server.
    init(allowed.indexOf(asked) >= 0 ? asked : allowed[0], {disableTelemetry: true}, document.getElementById("redoc"));
  </script>
</body>
</html>
`))
