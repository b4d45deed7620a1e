package server_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
)

// TestContractsValidate lints the served documents with kin-openapi (examples and defaults included)
// and checks the house rules every operation follows.
func TestContractsValidate(t *testing.T) {
	t.Parallel()
	var doc2 openapi2.T
	if err := json.Unmarshal(v1api.SwaggerJSON, &doc2); err != nil {
		t.Fatalf("/v1 swagger.json does not parse as Swagger 2.0: %v", err)
	}
	if doc2.Swagger != "2.0" || doc2.BasePath != "/" {
		t.Fatalf("/v1 swagger.json: swagger %q basePath %q, want 2.0 and /", doc2.Swagger, doc2.BasePath)
	}
	if _, err := openapi2conv.ToV3(&doc2); err != nil {
		t.Fatalf("/v1 swagger.json does not convert: %v", err)
	}
	for _, d := range []struct {
		name       string
		raw        []byte
		validation string
	}{{"/api", platformapi.OpenAPIJSON, "422"}, {"/v1", v1api.OpenAPIJSON, "400"}} {
		t.Run(d.name, func(t *testing.T) {
			loader := openapi3.NewLoader()
			doc, err := loader.LoadFromData(d.raw)
			if err != nil {
				t.Fatal(err)
			}
			if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation(), openapi3.EnableSchemaDefaultsValidation(),
				openapi3.EnableSchemaPatternValidation()); err != nil {
				t.Fatalf("kin-openapi validation: %v", err)
			}
			for path, item := range doc.Paths.Map() {
				for method, op := range item.Operations() {
					where := method + " " + path
					switch {
					case op.OperationID == "":
						t.Errorf("%s: no operationId", where)
					case len(op.Tags) != 1:
						t.Errorf("%s: %d tags, want 1", where, len(op.Tags))
					case op.Summary == "" || op.Description == "":
						t.Errorf("%s: summary and description are both required", where)
					case op.Responses.Default() == nil:
						t.Errorf("%s: no default (error) response", where)
					}
					secured := op.Security == nil || len(*op.Security) > 0
					if secured && op.Responses.Status(401) == nil {
						t.Errorf("%s: requires credentials but does not list 401", where)
					}
					hasInput := op.RequestBody != nil
					for _, p := range append(append(openapi3.Parameters{}, item.Parameters...), op.Parameters...) {
						if p.Value.In == "path" && op.Responses.Status(404) == nil {
							t.Errorf("%s: has path parameter %s but does not list 404", where, p.Value.Name)
						}
						if p.Value.In == "query" || p.Value.In == "path" {
							hasInput = true
						}
					}
					if hasInput && op.Responses.Value(d.validation) == nil {
						t.Errorf("%s: takes input but does not list %s for validation failures", where, d.validation)
					}
				}
			}
		})
	}
}
