package server_test

// Seed conformance: every route, parameter and named schema that the two contract documents (the
// seeds) state must be present, exactly as named and typed, in the OpenAPI documents the service
// serves. The seeds live outside the repository, so they are transcribed into
// testdata/seed_routes.json; this test compares the embedded documents with that fixture.
//
//   - Document 1 (/v1): gen/v1api.OpenAPIJSON (OpenAPI 3) and gen/v1api.SwaggerJSON (Swagger 2.0,
//     as written) are both checked, operation by operation.
//   - Document 2 (/api): gen/platformapi.OpenAPIJSON (OpenAPI 3.0.3): the section 4 routes, the
//     behaviours section 4 names without a path, and every schema named in sections 2 and 7.
//
// Run: go test ./internal/server/ -run Seed -count=1

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
)

// ---------------------------------------------------------------------------------------------
// Fixture

type seedFixture struct {
	About []string `json:"_about"`
	V1    seedV1   `json:"v1"`
	API   seedAPI  `json:"api"`
}

type seedV1 struct {
	Security      string               `json:"security"`
	XFieldsHeader seedParam            `json:"xFieldsHeader"`
	PathParams    map[string]seedParam `json:"pathParams"`
	FilterParams  map[string]seedParam `json:"filterParams"`
	FilterSets    map[string][]string  `json:"filterSets"`
	Operations    []seedV1Op           `json:"operations"`
}

type seedV1Op struct {
	Section         string               `json:"section"`
	Method          string               `json:"method"`
	Path            string               `json:"path"`
	Note            string               `json:"_note"`
	Query           map[string]seedParam `json:"query"`
	FilterSet       string               `json:"filterSet"`
	Filters         []string             `json:"filters"`
	FilterOverrides map[string]seedParam `json:"filterOverrides"`
	NoQuery         bool                 `json:"noQuery"`
	Body            *seedBody            `json:"body"`
	Responses       map[string]string    `json:"responses"`
	XFields         bool                 `json:"xFields"`
	SummaryContains string               `json:"summaryContains"`
}

type seedAPI struct {
	Rule       string                 `json:"_rule"`
	Operations []seedAPIOp            `json:"operations"`
	Behaviours []seedBehaviour        `json:"behaviours"`
	Schemas    map[string]*seedSchema `json:"schemas"`
}

type seedAPIOp struct {
	Method string               `json:"method"`
	Path   string               `json:"path"`
	Query  map[string]seedParam `json:"query"`
	Body   *seedBody            `json:"body"`
	Reply  *seedReply           `json:"reply"`
}

type seedBehaviour struct {
	Name        string               `json:"name"`
	Seed        string               `json:"seed"`
	Method      string               `json:"method"`
	BodySchema  string               `json:"bodySchema"`
	ReplySchema string               `json:"replySchema"`
	Statuses    []string             `json:"statuses"`
	NoSecurity  bool                 `json:"noSecurity"`
	Query       map[string]seedParam `json:"query"`
}

type seedParam struct {
	In       string          `json:"in"`
	Type     string          `json:"type"`
	Format   string          `json:"format"`
	Items    *seedItems      `json:"items"`
	Repeated bool            `json:"repeated"`
	Default  json.RawMessage `json:"default"`
	Enum     []any           `json:"enum"`
	Required bool            `json:"required"`
}

func (p seedParam) in() string {
	if p.In == "" {
		return "query"
	}
	return p.In
}

type seedItems struct {
	Type string `json:"type"`
	Enum []any  `json:"enum"`
}

type seedBody struct {
	None     bool        `json:"none"`
	Schema   string      `json:"schema"`
	Required bool        `json:"required"`
	Media    string      `json:"media"`
	Inline   *seedSchema `json:"inline"`
}

type seedReply struct {
	Schema string `json:"schema"`
	Media  string `json:"media"`
}

type seedSchema struct {
	Note          string                 `json:"_note"`
	Ref           string                 `json:"ref"`
	Type          string                 `json:"type"`
	Format        string                 `json:"format"`
	Required      []string               `json:"required"`
	Optional      []string               `json:"optional"`
	Properties    map[string]*seedSchema `json:"properties"`
	Items         *seedSchema            `json:"items"`
	Enum          []any                  `json:"enum"`
	MinLength     *uint64                `json:"minLength"`
	MaxLength     *uint64                `json:"maxLength"`
	MinItems      *uint64                `json:"minItems"`
	MaxItems      *uint64                `json:"maxItems"`
	Minimum       *float64               `json:"minimum"`
	Maximum       *float64               `json:"maximum"`
	GreaterThan   *float64               `json:"greaterThan"`
	Default       json.RawMessage        `json:"default"`
	Nullable      *bool                  `json:"nullable"`
	OneOf         []string               `json:"oneOf"`
	OneOfIncludes []string               `json:"oneOfIncludes"`
}

func loadSeedFixture(t *testing.T) *seedFixture {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "seed_routes.json"))
	if err != nil {
		t.Fatalf("read fixture: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields() // a misspelt key in the fixture must not silently skip a check
	var f seedFixture
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("decode testdata/seed_routes.json: %v", err)
	}
	return &f
}

// expected returns the parameters the seed lists for a /v1 operation (route parameters plus the
// shared filters, with per-route overrides) and the set of shared filter names the route must take.
func (v *seedV1) expected(op seedV1Op) (map[string]seedParam, map[string]bool) {
	params := map[string]seedParam{}
	filters := map[string]bool{}
	names := append(slices.Clone(v.FilterSets[op.FilterSet]), op.Filters...)
	for _, n := range names {
		filters[n] = true
		spec := v.FilterParams[n]
		if o, ok := op.FilterOverrides[n]; ok {
			spec = o
		}
		params[n] = spec
	}
	for n, p := range op.Query {
		params[n] = p
		if _, shared := v.FilterParams[n]; shared {
			filters[n] = true
		}
	}
	return params, filters
}

// ---------------------------------------------------------------------------------------------
// A document-neutral view of one served operation, built from either OpenAPI 3 or Swagger 2.0.

type seedServedParam struct {
	In, Name, Type, Format string
	ItemsType              string
	ItemsEnum              []any
	Enum                   []any
	Default                any
	HasDefault             bool
	Required               bool
	Repeated               bool   // OpenAPI 3: style form + explode true; Swagger 2.0: collectionFormat multi
	Serialization          string // how the parameter is serialised, for messages
}

type seedServedOp struct {
	Summary      string
	Params       []seedServedParam
	HasBody      bool
	BodyRequired bool
	BodySchemas  map[string]string            // media type -> schema name
	Responses    map[string]map[string]string // status -> media type -> schema name
	Security     []map[string][]string        // seedEffective security requirements
}

func (o *seedServedOp) param(in, name string) *seedServedParam {
	for i := range o.Params {
		if o.Params[i].In == in && o.Params[i].Name == name {
			return &o.Params[i]
		}
	}
	return nil
}

func (o *seedServedOp) paramAnyIn(name string) *seedServedParam {
	for i := range o.Params {
		if o.Params[i].Name == name {
			return &o.Params[i]
		}
	}
	return nil
}

func (o *seedServedOp) queryNames() []string {
	var out []string
	for _, p := range o.Params {
		if p.In == "query" {
			out = append(out, p.Name)
		}
	}
	sort.Strings(out)
	return out
}

func (o *seedServedOp) statuses() []string {
	return seedSortedKeys(o.Responses)
}

// ---------------------------------------------------------------------------------------------
// OpenAPI 3 (kin-openapi)

func seedLoadOpenAPI3(t *testing.T, label string, data []byte) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatalf("%s: kin-openapi cannot load the document: %v", label, err)
	}
	return doc
}

func seedLastSegment(ref string) string {
	return ref[strings.LastIndex(ref, "/")+1:]
}

// seedSchemaName names the schema a SchemaRef points to: "X" for a $ref to X (also through a
// single-element allOf wrapper or the served "X or null" anyOf), "[]X" for an array of X, "" for an
// inline schema.
func seedSchemaName(sr *openapi3.SchemaRef) string {
	if sr == nil {
		return ""
	}
	if sr.Ref != "" {
		return seedLastSegment(sr.Ref)
	}
	s := sr.Value
	if s == nil {
		return ""
	}
	if s.Type != nil && s.Type.Is("array") && s.Items != nil {
		if n := seedSchemaName(s.Items); n != "" {
			return "[]" + n
		}
	}
	if len(s.AllOf) == 1 {
		return seedSchemaName(s.AllOf[0])
	}
	if x := seedOrNull(s); x != nil {
		return seedSchemaName(x)
	}
	return ""
}

// seedOrNull is X when s is the served form of a nullable reference, anyOf [X, null] (see the
// bundler's nullableAlternatives), else nil.
func seedOrNull(s *openapi3.Schema) *openapi3.SchemaRef {
	if !s.Nullable || len(s.AnyOf) != 2 || s.AnyOf[1].Value == nil {
		return nil
	}
	if e := s.AnyOf[1].Value.Enum; len(e) != 1 || e[0] != nil {
		return nil
	}
	return s.AnyOf[0]
}

// seedEffective unwraps single-element allOf wrappers (used for "reference with a default") and the
// anyOf of a nullable reference, and returns the schema that carries the type, enum and properties.
func seedEffective(sr *openapi3.SchemaRef) *openapi3.Schema {
	if sr == nil {
		return nil
	}
	s := sr.Value
	for s != nil && len(s.Enum) == 0 && len(s.Properties) == 0 && len(s.OneOf) == 0 {
		if len(s.AllOf) == 1 {
			s = s.AllOf[0].Value
		} else if x := seedOrNull(s); x != nil {
			s = x.Value
		} else {
			break
		}
	}
	return s
}

func seedTypeName(s *openapi3.Schema) string {
	if s == nil || s.Type == nil {
		return ""
	}
	return strings.Join(s.Type.Slice(), ",")
}

func seedFromOpenAPI3Op(doc *openapi3.T, item *openapi3.PathItem, op *openapi3.Operation) seedServedOp {
	out := seedServedOp{
		Summary:     op.Summary,
		BodySchemas: map[string]string{},
		Responses:   map[string]map[string]string{},
	}
	// Path-level parameters, overridden by operation-level ones with the same name and location.
	merged := map[string]*openapi3.Parameter{}
	var order []string
	for _, list := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, pr := range list {
			if pr == nil || pr.Value == nil {
				continue
			}
			key := pr.Value.In + " " + pr.Value.Name
			if _, seen := merged[key]; !seen {
				order = append(order, key)
			}
			merged[key] = pr.Value
		}
	}
	for _, key := range order {
		p := merged[key]
		sp := seedServedParam{In: p.In, Name: p.Name, Required: p.Required}
		if s := seedEffective(p.Schema); s != nil {
			sp.Type = seedTypeName(s)
			sp.Format = s.Format
			sp.Enum = s.Enum
			if p.Schema.Value.Default != nil {
				sp.Default, sp.HasDefault = p.Schema.Value.Default, true
			} else if s.Default != nil {
				sp.Default, sp.HasDefault = s.Default, true
			}
			if items := seedEffective(s.Items); items != nil {
				sp.ItemsType = seedTypeName(items)
				sp.ItemsEnum = items.Enum
			}
		}
		if sm, err := p.SerializationMethod(); err == nil {
			sp.Repeated = sm.Style == openapi3.SerializationForm && sm.Explode
			sp.Serialization = fmt.Sprintf("style %s, explode %v", sm.Style, sm.Explode)
		}
		out.Params = append(out.Params, sp)
	}
	if op.RequestBody != nil && op.RequestBody.Value != nil {
		out.HasBody = true
		out.BodyRequired = op.RequestBody.Value.Required
		for media, mt := range op.RequestBody.Value.Content {
			if mt != nil {
				out.BodySchemas[media] = seedSchemaName(mt.Schema)
			}
		}
	}
	for code, rr := range op.Responses.Map() {
		media := map[string]string{}
		if rr != nil && rr.Value != nil {
			for m, mt := range rr.Value.Content {
				if mt != nil {
					media[m] = seedSchemaName(mt.Schema)
				}
			}
		}
		out.Responses[code] = media
	}
	sec := doc.Security
	if op.Security != nil {
		sec = *op.Security
	}
	for _, req := range sec {
		out.Security = append(out.Security, map[string][]string(req))
	}
	return out
}

func seedOpenAPI3Op(doc *openapi3.T, method, path string) (*openapi3.PathItem, *openapi3.Operation, string) {
	item := doc.Paths.Value(path)
	if item == nil {
		return nil, nil, fmt.Sprintf("path %s is not in the document", path)
	}
	op := item.GetOperation(strings.ToUpper(method))
	if op == nil {
		var have []string
		for m := range item.Operations() {
			have = append(have, m)
		}
		sort.Strings(have)
		return item, nil, fmt.Sprintf("path %s has no %s operation (it has %s)", path, method, strings.Join(have, ", "))
	}
	return item, op, ""
}

// ---------------------------------------------------------------------------------------------
// Swagger 2.0 (parsed generically; kin-openapi's openapi2 package does not resolve $refs)

type seedSwDoc struct {
	Security            []map[string][]string                 `json:"security"`
	SecurityDefinitions map[string]json.RawMessage            `json:"securityDefinitions"`
	Parameters          map[string]seedSwParam                `json:"parameters"`
	Responses           map[string]seedSwResponse             `json:"responses"`
	Paths               map[string]map[string]json.RawMessage `json:"paths"`
}

type seedSwParam struct {
	Ref              string        `json:"$ref"`
	In               string        `json:"in"`
	Name             string        `json:"name"`
	Type             string        `json:"type"`
	Format           string        `json:"format"`
	CollectionFormat string        `json:"collectionFormat"`
	Required         bool          `json:"required"`
	Default          any           `json:"default"`
	Enum             []any         `json:"enum"`
	Items            *seedSwSchema `json:"items"`
	Schema           *seedSwSchema `json:"schema"`
}

type seedSwSchema struct {
	Ref    string        `json:"$ref"`
	Type   string        `json:"type"`
	Format string        `json:"format"`
	Enum   []any         `json:"enum"`
	Items  *seedSwSchema `json:"items"`
}

type seedSwResponse struct {
	Ref    string        `json:"$ref"`
	Schema *seedSwSchema `json:"schema"`
}

type seedSwOp struct {
	Summary    string                    `json:"summary"`
	Parameters []seedSwParam             `json:"parameters"`
	Responses  map[string]seedSwResponse `json:"responses"`
	Security   *[]map[string][]string    `json:"security"`
}

func seedSwSchemaName(s *seedSwSchema) string {
	if s == nil {
		return ""
	}
	if s.Ref != "" {
		return seedLastSegment(s.Ref)
	}
	if s.Type == "array" && s.Items != nil {
		if n := seedSwSchemaName(s.Items); n != "" {
			return "[]" + n
		}
	}
	return ""
}

func (d *seedSwDoc) resolveParam(p seedSwParam) (seedSwParam, error) {
	if p.Ref == "" {
		return p, nil
	}
	name := strings.TrimPrefix(p.Ref, "#/parameters/")
	r, ok := d.Parameters[name]
	if !ok {
		return p, fmt.Errorf("unresolvable parameter $ref %q", p.Ref)
	}
	return r, nil
}

func (d *seedSwDoc) op(method, path string) (seedServedOp, string) {
	item, ok := d.Paths[path]
	if !ok {
		return seedServedOp{}, fmt.Sprintf("path %s is not in the document", path)
	}
	raw, ok := item[strings.ToLower(method)]
	if !ok {
		var have []string
		for k := range item {
			if k != "parameters" && !strings.HasPrefix(k, "x-") {
				have = append(have, strings.ToUpper(k))
			}
		}
		sort.Strings(have)
		return seedServedOp{}, fmt.Sprintf("path %s has no %s operation (it has %s)", path, method, strings.Join(have, ", "))
	}
	var op seedSwOp
	if err := json.Unmarshal(raw, &op); err != nil {
		return seedServedOp{}, fmt.Sprintf("cannot decode %s %s: %v", method, path, err)
	}
	var pathLevel []seedSwParam
	if rawParams, ok := item["parameters"]; ok {
		if err := json.Unmarshal(rawParams, &pathLevel); err != nil {
			return seedServedOp{}, fmt.Sprintf("cannot decode path-level parameters of %s: %v", path, err)
		}
	}
	out := seedServedOp{Summary: op.Summary, BodySchemas: map[string]string{}, Responses: map[string]map[string]string{}}
	merged := map[string]seedSwParam{}
	var order []string
	for _, list := range [][]seedSwParam{pathLevel, op.Parameters} {
		for _, p := range list {
			r, err := d.resolveParam(p)
			if err != nil {
				return seedServedOp{}, err.Error()
			}
			key := r.In + " " + r.Name
			if _, seen := merged[key]; !seen {
				order = append(order, key)
			}
			merged[key] = r
		}
	}
	for _, key := range order {
		p := merged[key]
		switch p.In {
		case "body":
			out.HasBody = true
			out.BodyRequired = p.Required
			out.BodySchemas["application/json"] = seedSwSchemaName(p.Schema)
			continue
		case "formData":
			out.HasBody = true
			out.BodySchemas["multipart/form-data"] = ""
		}
		sp := seedServedParam{
			In: p.In, Name: p.Name, Type: p.Type, Format: p.Format, Enum: p.Enum, Required: p.Required,
			Default: p.Default, HasDefault: p.Default != nil,
			Repeated:      p.CollectionFormat == "multi",
			Serialization: fmt.Sprintf("collectionFormat %q", p.CollectionFormat),
		}
		if p.Items != nil {
			sp.ItemsType = p.Items.Type
			sp.ItemsEnum = p.Items.Enum
		}
		out.Params = append(out.Params, sp)
	}
	for code, r := range op.Responses {
		if r.Ref != "" {
			if rr, ok := d.Responses[strings.TrimPrefix(r.Ref, "#/responses/")]; ok {
				r = rr
			}
		}
		media := map[string]string{}
		if r.Schema != nil {
			media["application/json"] = seedSwSchemaName(r.Schema)
		}
		out.Responses[code] = media
	}
	out.Security = d.Security
	if op.Security != nil {
		out.Security = *op.Security
	}
	return out, ""
}

// ---------------------------------------------------------------------------------------------
// Comparison helpers

func seedSortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func seedCanonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

func seedCanonicalRaw(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	return seedCanonical(v)
}

// seedEnumDiff returns "" when the served enum equals the seed's set, else a description.
func seedEnumDiff(served, want []any) string {
	has := map[string]bool{}
	for _, v := range served {
		has[seedCanonical(v)] = true
	}
	wanted := map[string]bool{}
	for _, v := range want {
		wanted[seedCanonical(v)] = true
	}
	var missing, extra []string
	for _, v := range want {
		if !has[seedCanonical(v)] {
			missing = append(missing, seedCanonical(v))
		}
	}
	for _, v := range served {
		if !wanted[seedCanonical(v)] {
			extra = append(extra, seedCanonical(v))
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return ""
	}
	var parts []string
	if len(served) == 0 {
		parts = append(parts, "no enum is declared")
	} else {
		parts = append(parts, "enum is "+seedCanonical(served))
	}
	if len(missing) > 0 {
		parts = append(parts, "missing "+strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		parts = append(parts, "not in the seed "+strings.Join(extra, ", "))
	}
	return strings.Join(parts, "; ") + "; seed requires exactly " + seedCanonical(want)
}

func seedCheckParams(op *seedServedOp, want map[string]seedParam) []string {
	var problems []string
	for _, name := range seedSortedKeys(want) {
		w := want[name]
		where := fmt.Sprintf("%s parameter %q", w.in(), name)
		p := op.param(w.in(), name)
		if p == nil {
			if q := op.paramAnyIn(name); q != nil {
				problems = append(problems, fmt.Sprintf("%s: declared in %q, seed requires in %q", where, q.In, w.in()))
			} else {
				problems = append(problems, fmt.Sprintf("%s is missing", where))
			}
			continue
		}
		if w.Type != "" && p.Type != w.Type {
			problems = append(problems, fmt.Sprintf("%s: type is %q, seed requires %q", where, p.Type, w.Type))
		}
		if w.Format != "" && p.Format != w.Format {
			problems = append(problems, fmt.Sprintf("%s: format is %q, seed requires %q", where, p.Format, w.Format))
		}
		if w.Items != nil {
			if w.Items.Type != "" && p.ItemsType != w.Items.Type {
				problems = append(problems, fmt.Sprintf("%s: item type is %q, seed requires %q", where, p.ItemsType, w.Items.Type))
			}
			if w.Items.Enum != nil {
				if d := seedEnumDiff(p.ItemsEnum, w.Items.Enum); d != "" {
					problems = append(problems, fmt.Sprintf("%s: item %s", where, d))
				}
			}
		}
		if w.Repeated && !p.Repeated {
			problems = append(problems, fmt.Sprintf("%s: not a repeated parameter (%s); seed requires a repeated parameter (OpenAPI 3 style form + explode true, Swagger 2.0 collectionFormat multi)", where, p.Serialization))
		}
		if w.Default != nil {
			switch {
			case !p.HasDefault:
				problems = append(problems, fmt.Sprintf("%s: no default, seed requires default %s", where, seedCanonicalRaw(w.Default)))
			case seedCanonical(p.Default) != seedCanonicalRaw(w.Default):
				problems = append(problems, fmt.Sprintf("%s: default is %s, seed requires %s", where, seedCanonical(p.Default), seedCanonicalRaw(w.Default)))
			}
		}
		if w.Enum != nil {
			if d := seedEnumDiff(p.Enum, w.Enum); d != "" {
				problems = append(problems, fmt.Sprintf("%s: %s", where, d))
			}
		}
		if p.Required != w.Required {
			problems = append(problems, fmt.Sprintf("%s: required is %v, seed says %v", where, p.Required, w.Required))
		}
	}
	return problems
}

var seedPathParamRE = regexp.MustCompile(`\{([^}]+)\}`)

func seedCheckPathParams(op *seedServedOp, path string, types map[string]seedParam) []string {
	var problems []string
	for _, m := range seedPathParamRE.FindAllStringSubmatch(path, -1) {
		name := m[1]
		p := op.param("path", name)
		if p == nil {
			problems = append(problems, fmt.Sprintf("path parameter %q is not declared", name))
			continue
		}
		if !p.Required {
			problems = append(problems, fmt.Sprintf("path parameter %q is not required", name))
		}
		if w, ok := types[name]; ok && w.Type != "" && p.Type != w.Type {
			problems = append(problems, fmt.Sprintf("path parameter %q: type is %q, seed (section 2) requires %q", name, p.Type, w.Type))
		}
	}
	return problems
}

func seedCheckBody(op *seedServedOp, w *seedBody) []string {
	if w == nil {
		return nil
	}
	var problems []string
	switch {
	case w.None:
		if op.HasBody {
			problems = append(problems, fmt.Sprintf("seed says Body: none, but the route takes a request body %v", op.BodySchemas))
		}
		return problems
	case !op.HasBody:
		return []string{fmt.Sprintf("no request body; seed requires body %s", seedDescribeBody(w))}
	}
	if w.Media != "" {
		if _, ok := op.BodySchemas[w.Media]; !ok {
			problems = append(problems, fmt.Sprintf("request body media types are %v, seed requires %s", seedSortedKeys(op.BodySchemas), w.Media))
		}
	}
	if w.Schema != "" {
		found := false
		for _, name := range op.BodySchemas {
			if name == w.Schema {
				found = true
			}
		}
		if !found {
			problems = append(problems, fmt.Sprintf("request body schema is %v, seed requires %q", op.BodySchemas, w.Schema))
		}
	}
	if w.Required && !op.BodyRequired {
		problems = append(problems, fmt.Sprintf("request body %q is not required, seed says it is required", w.Schema))
	}
	return problems
}

func seedDescribeBody(w *seedBody) string {
	if w.Schema != "" {
		return w.Schema
	}
	return w.Media
}

func seedCheckResponses(op *seedServedOp, want map[string]string) []string {
	var problems []string
	for _, code := range seedSortedKeys(want) {
		media, ok := op.Responses[code]
		if !ok {
			problems = append(problems, fmt.Sprintf("no %s response (responses are %s)", code, strings.Join(op.statuses(), ", ")))
			continue
		}
		if name := want[code]; name != "" {
			found := false
			for _, got := range media {
				if got == name {
					found = true
				}
			}
			if !found {
				problems = append(problems, fmt.Sprintf("%s response schema is %s, seed requires %q", code, seedDescribeMedia(media), name))
			}
		}
	}
	return problems
}

func seedDescribeMedia(media map[string]string) string {
	if len(media) == 0 {
		return "(no content)"
	}
	var parts []string
	for _, m := range seedSortedKeys(media) {
		name := media[m]
		if name == "" {
			name = "(inline)"
		}
		parts = append(parts, m+" "+name)
	}
	return strings.Join(parts, ", ")
}

func seedCheckSecurity(op *seedServedOp, scheme string) []string {
	has := false
	for _, req := range op.Security {
		if len(req) == 0 {
			return []string{fmt.Sprintf("security %v contains an empty requirement (makes %s optional); seed requires %s", op.Security, scheme, scheme)}
		}
		if _, ok := req[scheme]; ok {
			has = true
		}
	}
	if !has {
		return []string{fmt.Sprintf("security is %v, seed requires the %s scheme", op.Security, scheme)}
	}
	return nil
}

// ---------------------------------------------------------------------------------------------
// Fixture self-check

func TestSeedFixture(t *testing.T) {
	f := loadSeedFixture(t)
	v := &f.V1

	all := seedSortedKeys(v.FilterParams)
	if len(all) != 34 {
		t.Errorf("v1.filterParams has %d filters, section 4.1 defines 34", len(all))
	}
	setOf := func(names []string) map[string]bool {
		m := map[string]bool{}
		for _, n := range names {
			if m[n] {
				t.Errorf("filter %q listed twice", n)
			}
			m[n] = true
		}
		return m
	}
	full := setOf(v.FilterSets["J-full"])
	fmcb := setOf(v.FilterSets["J-full+fmcb"])
	for _, n := range all {
		if n == "feedbackMessageCreatedBefore" {
			if full[n] {
				t.Errorf("J-full must not contain feedbackMessageCreatedBefore")
			}
		} else if !full[n] {
			t.Errorf("J-full lacks %q (it is every filter except feedbackMessageCreatedBefore)", n)
		}
		if !fmcb[n] {
			t.Errorf("J-full+fmcb lacks %q", n)
		}
	}
	for set, names := range v.FilterSets {
		for _, n := range names {
			if _, ok := v.FilterParams[n]; !ok {
				t.Errorf("filter set %s names unknown filter %q", set, n)
			}
		}
	}
	if n := len(v.FilterSets["J-cancel"]); n != 25 {
		t.Errorf("J-cancel has %d filters, section 4.1 lists 25", n)
	}
	if n := len(v.FilterSets["J-ids"]); n != 24 {
		t.Errorf("J-ids has %d filters, section 4.1 lists 24", n)
	}

	perSection := map[string]int{}
	seen := map[string]bool{}
	for _, op := range v.Operations {
		key := op.Method + " " + op.Path
		if seen[key] {
			t.Errorf("v1 operation %s listed twice", key)
		}
		seen[key] = true
		perSection[op.Section]++
		if op.FilterSet != "" {
			if _, ok := v.FilterSets[op.FilterSet]; !ok {
				t.Errorf("%s: unknown filter set %q", key, op.FilterSet)
			}
		}
		params, _ := v.expected(op)
		for n := range op.FilterOverrides {
			if _, ok := params[n]; !ok {
				t.Errorf("%s: override of %q, which the route does not take", key, n)
			}
		}
		for _, n := range op.Filters {
			if _, ok := v.FilterParams[n]; !ok {
				t.Errorf("%s: unknown filter %q", key, n)
			}
		}
		if op.NoQuery && len(params) > 0 {
			t.Errorf("%s: noQuery but parameters listed", key)
		}
		if len(op.Responses) == 0 {
			t.Errorf("%s: no responses listed", key)
		}
	}
	wantSections := map[string]int{"4.2": 7, "4.3": 5, "4.4": 9, "4.5": 9, "4.6": 13, "4.7": 5, "4.8": 7}
	for s, n := range wantSections {
		if perSection[s] != n {
			t.Errorf("section %s: %d operations in the fixture, the seed has %d", s, perSection[s], n)
		}
	}
	if len(v.Operations) != 55 {
		t.Errorf("v1: %d operations in the fixture, sections 4.2-4.8 have 55", len(v.Operations))
	}

	if len(f.API.Operations) != 24 {
		t.Errorf("api: %d operations in the fixture, the section 4 table has 24 (22 rows, one of them three paths)", len(f.API.Operations))
	}
	seen = map[string]bool{}
	for _, op := range f.API.Operations {
		key := op.Method + " " + op.Path
		if seen[key] {
			t.Errorf("api operation %s listed twice", key)
		}
		seen[key] = true
	}
	if len(f.API.Schemas) != 119 {
		t.Errorf("api: %d schemas in the fixture, sections 2 and 7 name 119", len(f.API.Schemas))
	}

	nParams := 0
	for _, op := range v.Operations {
		p, _ := v.expected(op)
		nParams += len(p)
	}
	for _, op := range f.API.Operations {
		nParams += len(op.Query)
	}
	t.Logf("fixture: %d /v1 operations, %d /api operations, %d /api behaviours, %d query parameters, %d /api schemas",
		len(v.Operations), len(f.API.Operations), len(f.API.Behaviours), nParams, len(f.API.Schemas))
}

// ---------------------------------------------------------------------------------------------
// Document 1: /v1

func TestSeedV1Routes(t *testing.T) {
	f := loadSeedFixture(t)
	v := &f.V1

	doc3 := seedLoadOpenAPI3(t, "gen/v1api OpenAPIJSON", v1api.OpenAPIJSON)
	var sw seedSwDoc
	if err := json.Unmarshal(v1api.SwaggerJSON, &sw); err != nil {
		t.Fatalf("gen/v1api SwaggerJSON: %v", err)
	}

	if doc3.Components == nil || doc3.Components.SecuritySchemes[v.Security] == nil {
		t.Errorf("[openapi3] components.securitySchemes has no %q scheme (seed section 5)", v.Security)
	}
	if _, ok := sw.SecurityDefinitions[v.Security]; !ok {
		t.Errorf("[swagger2] securityDefinitions has no %q scheme (seed section 5)", v.Security)
	}

	for _, op := range v.Operations {
		op := op
		t.Run(op.Method+" "+op.Path, func(t *testing.T) {
			// OpenAPI 3 conversion
			if item, o, miss := seedOpenAPI3Op(doc3, op.Method, op.Path); miss != "" {
				t.Errorf("[openapi3] %s (seed section %s)", miss, op.Section)
			} else {
				served := seedFromOpenAPI3Op(doc3, item, o)
				for _, p := range seedCheckV1Op(v, op, &served) {
					t.Errorf("[openapi3] %s (seed section %s)", p, op.Section)
				}
			}
			// Swagger 2.0 as written
			if served, miss := sw.op(op.Method, op.Path); miss != "" {
				t.Errorf("[swagger2] %s (seed section %s)", miss, op.Section)
			} else {
				for _, p := range seedCheckV1Op(v, op, &served) {
					t.Errorf("[swagger2] %s (seed section %s)", p, op.Section)
				}
			}
		})
	}
}

func seedCheckV1Op(v *seedV1, op seedV1Op, served *seedServedOp) []string {
	params, filters := v.expected(op)
	var problems []string

	problems = append(problems, seedCheckPathParams(served, op.Path, v.PathParams)...)
	problems = append(problems, seedCheckParams(served, params)...)

	// The shared filters the route takes must be exactly the documented ones. (Documented filters
	// that are missing are already reported above, parameter by parameter.)
	var extra []string
	for _, name := range served.queryNames() {
		if _, shared := v.FilterParams[name]; shared && !filters[name] {
			extra = append(extra, name)
		}
	}
	if len(extra) > 0 {
		filterDesc := "no shared filters"
		if op.FilterSet != "" {
			filterDesc = "filter set " + op.FilterSet
		}
		if len(op.Filters) > 0 {
			filterDesc += " plus " + strings.Join(op.Filters, ", ")
		}
		problems = append(problems, fmt.Sprintf("accepts shared filters outside its documented set (%s): %s", filterDesc, strings.Join(extra, ", ")))
	}
	if op.NoQuery {
		if q := served.queryNames(); len(q) > 0 {
			problems = append(problems, fmt.Sprintf("seed says Query: none, but the route takes query parameters %s", strings.Join(q, ", ")))
		}
	}

	problems = append(problems, seedCheckBody(served, op.Body)...)
	problems = append(problems, seedCheckResponses(served, op.Responses)...)

	if op.XFields {
		want := map[string]seedParam{"X-Fields": v.XFieldsHeader}
		for _, p := range seedCheckParams(served, want) {
			problems = append(problems, p+" (section 4: operations that return a body accept the optional X-Fields header)")
		}
	}
	problems = append(problems, seedCheckSecurity(served, v.Security)...)

	if op.SummaryContains != "" && !strings.Contains(strings.ToLower(served.Summary), op.SummaryContains) {
		problems = append(problems, fmt.Sprintf("summary %q does not mark the route as %q", served.Summary, op.SummaryContains))
	}
	return problems
}

// ---------------------------------------------------------------------------------------------
// Document 2: /api

func TestSeedAPIRoutes(t *testing.T) {
	f := loadSeedFixture(t)
	doc := seedLoadOpenAPI3(t, "gen/platformapi OpenAPIJSON", platformapi.OpenAPIJSON)

	for _, op := range f.API.Operations {
		op := op
		t.Run(op.Method+" "+op.Path, func(t *testing.T) {
			item, o, miss := seedOpenAPI3Op(doc, op.Method, op.Path)
			if miss != "" {
				t.Errorf("%s (seed Document 2 section 4)", miss)
				return
			}
			served := seedFromOpenAPI3Op(doc, item, o)
			var problems []string
			problems = append(problems, seedCheckPathParams(&served, op.Path, nil)...)
			problems = append(problems, seedCheckParams(&served, op.Query)...)
			problems = append(problems, seedCheckBody(&served, op.Body)...)
			if op.Body != nil && op.Body.Inline != nil {
				problems = append(problems, seedCheckInlineBody(o, op.Body)...)
			}
			if !seedHasSuccess(&served) {
				problems = append(problems, fmt.Sprintf("no 2xx response (responses are %s)", strings.Join(served.statuses(), ", ")))
			}
			if op.Reply != nil {
				problems = append(problems, seedCheckReply(&served, op.Reply)...)
			}
			for _, p := range problems {
				t.Errorf("%s (seed Document 2 section 4)", p)
			}
		})
	}
}

func seedHasSuccess(op *seedServedOp) bool {
	for code := range op.Responses {
		if strings.HasPrefix(code, "2") {
			return true
		}
	}
	return false
}

func seedCheckReply(op *seedServedOp, w *seedReply) []string {
	var seen []string
	for _, code := range op.statuses() {
		if !strings.HasPrefix(code, "2") {
			continue
		}
		media := op.Responses[code]
		seen = append(seen, code+" "+seedDescribeMedia(media))
		for m, name := range media {
			if (w.Media == "" || m == w.Media) && (w.Schema == "" || name == w.Schema) {
				return nil
			}
		}
	}
	want := w.Schema
	if w.Media != "" {
		want = strings.TrimSpace(w.Media + " " + w.Schema)
	}
	return []string{fmt.Sprintf("no 2xx reply is %s; 2xx replies: %s", want, strings.Join(seen, "; "))}
}

func seedCheckInlineBody(o *openapi3.Operation, w *seedBody) []string {
	mt := o.RequestBody.Value.Content[w.Media]
	if mt == nil {
		return nil // reported by seedCheckBody
	}
	return seedCheckSchema("request body "+w.Media, mt.Schema, w.Inline)
}

func TestSeedAPIBehaviours(t *testing.T) {
	f := loadSeedFixture(t)
	doc := seedLoadOpenAPI3(t, "gen/platformapi OpenAPIJSON", platformapi.OpenAPIJSON)

	type candidate struct {
		name   string
		served seedServedOp
	}
	var ops []candidate
	for _, path := range doc.Paths.Keys() {
		item := doc.Paths.Value(path)
		for _, method := range seedSortedKeys(item.Operations()) {
			ops = append(ops, candidate{method + " " + path, seedFromOpenAPI3Op(doc, item, item.GetOperation(method))})
		}
	}
	replies := func(op *seedServedOp, schema string) bool {
		for code, media := range op.Responses {
			if !strings.HasPrefix(code, "2") {
				continue
			}
			for _, name := range media {
				if name == schema || name == "[]"+schema {
					return true
				}
			}
		}
		return false
	}
	takes := func(op *seedServedOp, schema string) bool {
		for _, name := range op.BodySchemas {
			if name == schema {
				return true
			}
		}
		return false
	}

	for _, b := range f.API.Behaviours {
		b := b
		t.Run(b.Name, func(t *testing.T) {
			var matched []string
			var failures []string
			for _, c := range ops {
				c := c
				if b.Method != "" && !strings.HasPrefix(c.name, b.Method+" ") {
					continue
				}
				if b.BodySchema != "" && !takes(&c.served, b.BodySchema) {
					continue
				}
				if b.ReplySchema != "" && !replies(&c.served, b.ReplySchema) {
					continue
				}
				matched = append(matched, c.name)
				var problems []string
				for _, code := range b.Statuses {
					if _, ok := c.served.Responses[code]; !ok {
						problems = append(problems, fmt.Sprintf("no %s response (responses are %s)", code, strings.Join(c.served.statuses(), ", ")))
					}
				}
				if b.NoSecurity {
					open := len(c.served.Security) == 0
					for _, req := range c.served.Security {
						if len(req) == 0 {
							open = true
						}
					}
					if !open {
						problems = append(problems, fmt.Sprintf("requires credentials %v, seed says it needs none", c.served.Security))
					}
				}
				problems = append(problems, seedCheckParams(&c.served, b.Query)...)
				if len(problems) == 0 {
					return // one operation fulfils the behaviour
				}
				failures = append(failures, c.name+": "+strings.Join(problems, "; "))
			}
			desc := []string{}
			if b.Method != "" {
				desc = append(desc, "method "+b.Method)
			}
			if b.BodySchema != "" {
				desc = append(desc, "body "+b.BodySchema)
			}
			if b.ReplySchema != "" {
				desc = append(desc, "reply "+b.ReplySchema)
			}
			if len(matched) == 0 {
				t.Errorf("no operation in the /api document has %s (seed: %s)", strings.Join(desc, ", "), b.Seed)
				return
			}
			for _, fl := range failures {
				t.Errorf("%s (seed: %s)", fl, b.Seed)
			}
		})
	}
}

func TestSeedAPISchemas(t *testing.T) {
	f := loadSeedFixture(t)
	doc := seedLoadOpenAPI3(t, "gen/platformapi OpenAPIJSON", platformapi.OpenAPIJSON)

	for _, name := range seedSortedKeys(f.API.Schemas) {
		name := name
		t.Run(name, func(t *testing.T) {
			sr := doc.Components.Schemas[name]
			if sr == nil {
				t.Errorf("components.schemas has no %q (named in seed Document 2)", name)
				return
			}
			for _, p := range seedCheckSchema(name, sr, f.API.Schemas[name]) {
				t.Errorf("%s (seed Document 2 section 2)", p)
			}
		})
	}
}

func seedCheckSchema(where string, sr *openapi3.SchemaRef, w *seedSchema) []string {
	if w == nil {
		return nil
	}
	var problems []string
	add := func(format string, args ...any) {
		problems = append(problems, where+": "+fmt.Sprintf(format, args...))
	}
	if w.Ref != "" {
		if got := seedSchemaName(sr); got != w.Ref {
			add("refers to %q, seed requires %q", got, w.Ref)
		}
	}
	s := seedEffective(sr)
	if s == nil {
		add("has no schema")
		return problems
	}
	if w.Nullable != nil {
		// Any JSON value (JsonValue) accepts null through one of its typed alternatives.
		nullable := sr.Value.Nullable || s.Nullable || (s.Type != nil && s.Type.IncludesNull()) ||
			slices.ContainsFunc(s.OneOf, func(alt *openapi3.SchemaRef) bool { return alt.Value != nil && alt.Value.Nullable })
		if nullable != *w.Nullable {
			add("nullable is %v, seed says %v", nullable, *w.Nullable)
		}
	}
	if w.Type != "" && seedTypeName(s) != w.Type {
		add("type is %q, seed requires %q", seedTypeName(s), w.Type)
	}
	if w.Format != "" && s.Format != w.Format {
		add("format is %q, seed requires %q", s.Format, w.Format)
	}
	if w.Enum != nil {
		if d := seedEnumDiff(s.Enum, w.Enum); d != "" {
			add("%s", d)
		}
	}
	if w.MinLength != nil && s.MinLength != *w.MinLength {
		add("minLength is %d, seed requires %d", s.MinLength, *w.MinLength)
	}
	if w.MaxLength != nil && (s.MaxLength == nil || *s.MaxLength != *w.MaxLength) {
		add("maxLength is %s, seed requires %d", seedOptUint(s.MaxLength), *w.MaxLength)
	}
	if w.MinItems != nil && s.MinItems != *w.MinItems {
		add("minItems is %d, seed requires %d", s.MinItems, *w.MinItems)
	}
	if w.MaxItems != nil && (s.MaxItems == nil || *s.MaxItems != *w.MaxItems) {
		add("maxItems is %s, seed requires %d", seedOptUint(s.MaxItems), *w.MaxItems)
	}
	if w.Minimum != nil && (s.Min == nil || *s.Min != *w.Minimum || s.ExclusiveMin.IsTrue()) {
		add("minimum is %s, seed requires %v (inclusive)", seedDescribeMin(s), *w.Minimum)
	}
	if w.Maximum != nil && (s.Max == nil || *s.Max != *w.Maximum || s.ExclusiveMax.IsTrue()) {
		add("maximum is %s, seed requires %v (inclusive)", seedOptFloat(s.Max), *w.Maximum)
	}
	if g := w.GreaterThan; g != nil {
		ok := (s.ExclusiveMin.IsTrue() && s.Min != nil && *s.Min == *g) ||
			(s.ExclusiveMin.Value != nil && *s.ExclusiveMin.Value == *g) ||
			(seedTypeName(s) == "integer" && !s.ExclusiveMin.IsTrue() && s.Min != nil && *s.Min == *g+1)
		if !ok {
			add("lower bound is %s, seed requires a value greater than %v", seedDescribeMin(s), *g)
		}
	}
	if w.Default != nil {
		def := sr.Value.Default
		if def == nil {
			def = s.Default
		}
		switch {
		case def == nil:
			add("no default, seed requires default %s", seedCanonicalRaw(w.Default))
		case seedCanonical(def) != seedCanonicalRaw(w.Default):
			add("default is %s, seed requires %s", seedCanonical(def), seedCanonicalRaw(w.Default))
		}
	}
	for _, r := range w.Required {
		if !slices.Contains(s.Required, r) {
			add("%q is not required (required: %v), seed requires it", r, s.Required)
		}
	}
	for _, o := range w.Optional {
		if slices.Contains(s.Required, o) {
			add("%q is required, seed says it is optional", o)
		}
		if _, listed := w.Properties[o]; !listed && s.Properties[o] == nil {
			add("has no property %q", o)
		}
	}
	for _, pname := range seedSortedKeys(w.Properties) {
		ps := s.Properties[pname]
		if ps == nil {
			add("has no property %q (properties: %s)", pname, strings.Join(seedSortedKeys(s.Properties), ", "))
			continue
		}
		problems = append(problems, seedCheckSchema(where+"."+pname, ps, w.Properties[pname])...)
	}
	if w.Items != nil {
		if s.Items == nil {
			add("has no items schema, seed requires an array of %s", seedDescribeSeedSchema(w.Items))
		} else {
			problems = append(problems, seedCheckSchema(where+"[]", s.Items, w.Items)...)
		}
	}
	if w.OneOf != nil || w.OneOfIncludes != nil {
		var names []string
		for _, alt := range s.OneOf {
			names = append(names, seedSchemaName(alt))
		}
		if w.OneOf != nil {
			want := make([]any, len(w.OneOf))
			got := make([]any, len(names))
			for i, n := range w.OneOf {
				want[i] = n
			}
			for i, n := range names {
				got[i] = n
			}
			if d := seedEnumDiff(got, want); d != "" {
				add("oneOf alternatives differ: %s", strings.Replace(d, "enum is", "oneOf is", 1))
			}
		}
		for _, n := range w.OneOfIncludes {
			if !slices.Contains(names, n) {
				add("oneOf %v does not include %q", names, n)
			}
		}
	}
	return problems
}

func seedDescribeSeedSchema(w *seedSchema) string {
	switch {
	case w.Ref != "":
		return w.Ref
	case w.Type != "":
		return w.Type
	}
	return "items"
}

func seedOptUint(v *uint64) string {
	if v == nil {
		return "unset"
	}
	return fmt.Sprint(*v)
}

func seedOptFloat(v *float64) string {
	if v == nil {
		return "unset"
	}
	return fmt.Sprint(*v)
}

func seedDescribeMin(s *openapi3.Schema) string {
	switch {
	case s.ExclusiveMin.Value != nil:
		return fmt.Sprintf("exclusiveMinimum %v", *s.ExclusiveMin.Value)
	case s.Min == nil:
		return "unset"
	case s.ExclusiveMin.IsTrue():
		return fmt.Sprintf("> %v (exclusive)", *s.Min)
	}
	return fmt.Sprintf("%v (inclusive)", *s.Min)
}
