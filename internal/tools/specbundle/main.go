// Command specbundle turns the hand-written contracts into the documents the generator and the server use.
//
// It merges the /api area files (openapi/api/*.yaml) into one OpenAPI 3.0.3 document, converts the /v1
// Swagger 2.0 document to OpenAPI 3.0 with kin-openapi, validates both, and refuses operationIds whose
// derived Go type names would collide with schema names. Operations marked x-pending are described as
// not available yet (see markPending). Each interface gets two outputs: the served documents, without
// generator settings (x-go-*), and with -codegen the input of oapi-codegen, which keeps them. Output
// is deterministic JSON so that `make generate` is reproducible.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v3"
)

func main() {
	apiDir := flag.String("api", "openapi/api", "folder of the /api contract (openapi.yaml is the root)")
	v1File := flag.String("v1", "openapi/v1/swagger.yaml", "the /v1 Swagger 2.0 contract")
	out := flag.String("out", "gen", "output folder of the served documents (platformapi/ and v1api/ below it)")
	codegen := flag.String("codegen", "", "folder for the generator's inputs platformapi.json and v1api.json (none when empty)")
	flag.Parse()

	var problems []string
	if err := bundleAPI(*apiDir, filepath.Join(*out, "platformapi"), *codegen); err != nil {
		problems = append(problems, "/api: "+err.Error())
	}
	if err := convertV1(*v1File, filepath.Join(*out, "v1api"), *codegen); err != nil {
		problems = append(problems, "/v1: "+err.Error())
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, p)
		}
		os.Exit(1)
	}
}

func readYAML(path string) (map[string]any, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if doc == nil {
		doc = map[string]any{}
	}
	return doc, nil
}

// bundleAPI merges every area file into the root document. Areas may only add paths, methods of a
// path, component entries and tags; anything defined twice is an error rather than a silent overwrite.
func bundleAPI(dir, outDir, codegenDir string) error {
	root, err := readYAML(filepath.Join(dir, "openapi.yaml"))
	if err != nil {
		return err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	var errs []error
	for _, f := range files {
		if base := filepath.Base(f); base == "openapi.yaml" || base == "oapi-codegen.yaml" {
			continue
		}
		part, err := readYAML(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, mergeArea(root, part, filepath.Base(f))...)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if _, err := markPending(root, "#/components/responses/NotImplemented"); err != nil {
		return err
	}
	if err := writeCodegen(codegenDir, "platformapi.json", root); err != nil {
		return err
	}
	servedRoot := served(root)
	nullableAlternatives(servedRoot)
	data, err := marshal(servedRoot)
	if err != nil {
		return err
	}
	doc, err := loadV3(data)
	if err != nil {
		return err
	}
	if err := checkNames(doc); err != nil {
		return err
	}
	return writeFiles(outDir, map[string][]byte{"openapi.json": data}, "platformapi",
		"// OpenAPIJSON is the bundled /api contract, served at /api/openapi.json.\n//\n//go:embed openapi.json\nvar OpenAPIJSON []byte\n")
}

func mergeArea(root, part map[string]any, name string) []error {
	var errs []error
	for key, val := range part {
		switch key {
		case "paths":
			paths := ensureMap(root, "paths")
			for p, ops := range asMap(val) {
				existing := asMap(paths[p])
				if existing == nil {
					paths[p] = ops
					continue
				}
				for method, op := range asMap(ops) {
					if _, dup := existing[method]; dup {
						errs = append(errs, fmt.Errorf("%s: %s %s is defined twice", name, method, p))
						continue
					}
					existing[method] = op
				}
			}
		case "components":
			comps := ensureMap(root, "components")
			for section, entries := range asMap(val) {
				dst := ensureMap(comps, section)
				for n, v := range asMap(entries) {
					if _, dup := dst[n]; dup {
						errs = append(errs, fmt.Errorf("%s: components.%s.%s is defined twice", name, section, n))
						continue
					}
					dst[n] = v
				}
			}
		case "tags":
			tags, _ := root["tags"].([]any)
			root["tags"] = append(tags, val.([]any)...)
		default:
			errs = append(errs, fmt.Errorf("%s: top-level key %q is only allowed in openapi.yaml", name, key))
		}
	}
	return errs
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func ensureMap(m map[string]any, key string) map[string]any {
	if v, ok := m[key].(map[string]any); ok {
		return v
	}
	v := map[string]any{}
	m[key] = v
	return v
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func loadV3(data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	return doc, nil
}

// writeCodegen writes the input of the generator: the whole document, generator settings included.
func writeCodegen(dir, name string, doc any) error {
	if dir == "" {
		return nil
	}
	data, err := marshal(doc)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), data, 0o644)
}

// convertV1 keeps the Swagger 2.0 document as written (served at /v1/swagger.json) and converts it to
// OpenAPI 3.0 (served at /v1/openapi.json; with generator settings, the input of the generator).
func convertV1(file, outDir, codegenDir string) error {
	src, err := readYAML(file)
	if err != nil {
		return err
	}
	if _, err := markPending(src, "#/responses/NotImplemented"); err != nil {
		return err
	}
	swaggerJSON, err := marshal(served(src))
	if err != nil {
		return err
	}
	fullJSON, err := marshal(src)
	if err != nil {
		return err
	}
	var doc2 openapi2.T
	if err := json.Unmarshal(fullJSON, &doc2); err != nil {
		return fmt.Errorf("parse swagger 2.0: %w", err)
	}
	doc3, err := openapi2conv.ToV3(&doc2)
	if err != nil {
		return fmt.Errorf("convert to 3.0: %w", err)
	}
	// A relative server keeps the request validator matching /v1/... paths on any host (see DESIGN.md).
	doc3.Servers = openapi3.Servers{{URL: "/"}}
	raw3, err := json.Marshal(doc3)
	if err != nil {
		return err
	}
	var generic any
	if err := json.Unmarshal(raw3, &generic); err != nil {
		return err
	}
	promoteOneOf(generic)
	if err := writeCodegen(codegenDir, "v1api.json", generic); err != nil {
		return err
	}
	servedGeneric := served(generic)
	nullableAlternatives(servedGeneric)
	openapiJSON, err := marshal(servedGeneric)
	if err != nil {
		return err
	}
	doc, err := loadV3(openapiJSON)
	if err != nil {
		return err
	}
	if err := checkNames(doc); err != nil {
		return err
	}
	return writeFiles(outDir, map[string][]byte{"swagger.json": swaggerJSON, "openapi.json": openapiJSON}, "v1api",
		"// SwaggerJSON is the /v1 contract as written (Swagger 2.0), served at /v1/swagger.json.\n//\n//go:embed swagger.json\nvar SwaggerJSON []byte\n\n"+
			"// OpenAPIJSON is the /v1 contract converted to OpenAPI 3.0, served at /v1/openapi.json.\n//\n//go:embed openapi.json\nvar OpenAPIJSON []byte\n")
}

// generatedSuffixes are the endings oapi-codegen appends to an operationId to name its types.
var generatedSuffixes = []string{"Response", "Request", "Params", "JSONBody", "JSONRequestBody", "RequestObject",
	"ResponseObject", "Body", "MultipartBody", "MultipartRequestBody", "RequestBody"}

func checkNames(doc *openapi3.T) error {
	schemas := map[string]bool{}
	if doc.Components != nil {
		for name := range doc.Components.Schemas {
			schemas[name] = true
		}
	}
	seen := map[string]string{}
	var errs []error
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			where := method + " " + path
			if op.OperationID == "" {
				errs = append(errs, fmt.Errorf("%s has no operationId", where))
				continue
			}
			if prev, dup := seen[op.OperationID]; dup {
				errs = append(errs, fmt.Errorf("operationId %s is used by %s and %s", op.OperationID, prev, where))
			}
			seen[op.OperationID] = where
			base := strings.ToUpper(op.OperationID[:1]) + op.OperationID[1:]
			for _, s := range generatedSuffixes {
				if schemas[base+s] {
					errs = append(errs, fmt.Errorf("operationId %s (%s) collides with schema %s: rename the operation", op.OperationID, where, base+s))
				}
			}
			if op.Responses == nil || op.Responses.Default() == nil {
				errs = append(errs, fmt.Errorf("%s (%s) has no default response", op.OperationID, where))
			}
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errors.Join(errs...)
}

func writeFiles(dir string, files map[string][]byte, pkg, embedDecls string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	src := "// Code generated by internal/tools/specbundle. DO NOT EDIT.\n\npackage " + pkg +
		"\n\nimport _ \"embed\"\n\n" + embedDecls
	return os.WriteFile(filepath.Join(dir, "spec.gen.go"), []byte(src), 0o644)
}
