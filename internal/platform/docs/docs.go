// Package docs serves the contracts and the pages that render them. The pages work offline: Swagger UI
// and ReDoc are embedded in the binary (refreshed with `make docs-assets`, versions pinned in the
// Makefile), never loaded from a CDN.
package docs

import (
	"bytes"
	"context"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"path"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/httpx"
)

//go:embed assets
var assets embed.FS

// AssetsPrefix is where the embedded files are served.
const AssetsPrefix = "/api/docs/assets/"

// Spec is one interface shown in the pages.
type Spec struct {
	Name string
	URL  string
}

// Service implements the documentation operations of the /api contract.
type Service struct {
	apiJSON, v1Swagger, v1OpenAPI []byte
	swaggerHTML, redocHTML        []byte
}

// New renders the pages once; they list specs in the order given.
func New(apiJSON, v1Swagger, v1OpenAPI []byte, specs []Spec) (*Service, error) {
	s := &Service{apiJSON: apiJSON, v1Swagger: v1Swagger, v1OpenAPI: v1OpenAPI}
	data := struct {
		Assets string
		Specs  []Spec
	}{AssetsPrefix, specs}
	for _, p := range []struct {
		t   *template.Template
		out *[]byte
	}{{swaggerPage, &s.swaggerHTML}, {redocPage, &s.redocHTML}} {
		var b bytes.Buffer
		if err := p.t.Execute(&b, data); err != nil {
			return nil, err
		}
		*p.out = b.Bytes()
	}
	return s, nil
}

// assetTypes are the files the pages load; anything else in the folder (licences) is not served.
var assetTypes = map[string]string{".js": "application/javascript", ".css": "text/css", ".png": "image/png",
	".svg": "image/svg+xml"}

// asset sends an embedded file with a cache lifetime: the files change only with the binary.
type asset struct {
	contentType string
	data        []byte
}

func (a asset) VisitGetDocsAssetResponse(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", a.contentType)
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(a.data)
	return err
}

// GetDocsAsset serves the embedded Swagger UI and ReDoc files.
func (s *Service) GetDocsAsset(_ context.Context, req platformapi.GetDocsAssetRequestObject) (platformapi.GetDocsAssetResponseObject, error) {
	ctype, ok := assetTypes[path.Ext(req.File)]
	if !ok {
		return nil, httpx.NotFound("asset")
	}
	data, err := fs.ReadFile(assets, "assets/"+req.File)
	if err != nil {
		return nil, httpx.NotFound("asset")
	}
	return asset{contentType: ctype, data: data}, nil
}

// GetSwaggerUi serves Swagger UI with both interfaces selectable.
func (s *Service) GetSwaggerUi(context.Context, platformapi.GetSwaggerUiRequestObject) (platformapi.GetSwaggerUiResponseObject, error) {
	return platformapi.GetSwaggerUi200TexthtmlResponse{Body: bytes.NewReader(s.swaggerHTML), ContentLength: int64(len(s.swaggerHTML))}, nil
}

// GetRedoc serves the ReDoc reference page.
func (s *Service) GetRedoc(context.Context, platformapi.GetRedocRequestObject) (platformapi.GetRedocResponseObject, error) {
	return platformapi.GetRedoc200TexthtmlResponse{Body: bytes.NewReader(s.redocHTML), ContentLength: int64(len(s.redocHTML))}, nil
}

// rawJSON sends an embedded document byte for byte instead of decoding and re-encoding it.
type rawJSON []byte

func (r rawJSON) write(w http.ResponseWriter) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(r)
	return err
}

func (r rawJSON) VisitGetOpenApiDocumentResponse(w http.ResponseWriter) error   { return r.write(w) }
func (r rawJSON) VisitGetV1SwaggerDocumentResponse(w http.ResponseWriter) error { return r.write(w) }
func (r rawJSON) VisitGetV1OpenApiDocumentResponse(w http.ResponseWriter) error { return r.write(w) }

// GetOpenApiDocument serves the bundled /api contract.
func (s *Service) GetOpenApiDocument(context.Context, platformapi.GetOpenApiDocumentRequestObject) (platformapi.GetOpenApiDocumentResponseObject, error) {
	return rawJSON(s.apiJSON), nil
}

// GetV1SwaggerDocument serves the /v1 contract as written (Swagger 2.0).
func (s *Service) GetV1SwaggerDocument(context.Context, platformapi.GetV1SwaggerDocumentRequestObject) (platformapi.GetV1SwaggerDocumentResponseObject, error) {
	return rawJSON(s.v1Swagger), nil
}

// GetV1OpenApiDocument serves the /v1 contract converted to OpenAPI 3.0.
func (s *Service) GetV1OpenApiDocument(context.Context, platformapi.GetV1OpenApiDocumentRequestObject) (platformapi.GetV1OpenApiDocumentResponseObject, error) {
	return rawJSON(s.v1OpenAPI), nil
}
