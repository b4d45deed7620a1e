package tasks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A JSON schema a tenant writes (an llm task's output_schema) is compiled by the server, and the compiler
// would by default load every $ref it cannot resolve inside the document: from the server's disk
// (file:///…) or from any URL, and its errors would show what it read. So a tenant's schema may refer
// only inside itself: every other $ref is refused when the flow is saved (CheckTenantSchema), and the
// compiler that runs it has a loader that refuses everything (CompileTenantSchema).

// KindExternalRef is the problem type of a $ref that points outside the schema.
const KindExternalRef = "external_ref"

// errNoLoading is what the refusing loader answers; it names no content, since nothing is read.
var errNoLoading = errors.New("a schema may refer only inside itself (a $ref starting with #)")

type refuseLoader struct{}

func (refuseLoader) Load(string) (any, error) { return nil, errNoLoading }

// tenantSchemaURL is the name the document is compiled under; it is in no scheme any loader serves.
const tenantSchemaURL = "urn:loopwork:tenant-schema"

// refKeywords hold references to other schemas.
var refKeywords = map[string]bool{"$ref": true, "$dynamicRef": true, "$recursiveRef": true}

// dataKeywords hold instance values, not schemas: a "$ref" inside them is data.
var dataKeywords = map[string]bool{"const": true, "enum": true, "default": true, "examples": true}

// CompileTenantSchema compiles a tenant's JSON schema (a decoded JSON value; draft 2020-12 unless its
// $schema names another draft) without ever loading anything from outside the document.
func CompileTenantSchema(doc any) (*jsonschema.Schema, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(tenantSchemaURL, v); err != nil {
		return nil, err
	}
	return c.Compile(tenantSchemaURL)
}

// CheckTenantSchema reports each reference of a tenant's schema that points outside the document, with
// Loc inside the schema (e.g. ["properties", "a", "$ref"]), then whether the schema compiles.
func CheckTenantSchema(doc any) []Problem {
	var out []Problem
	outsideRefs(doc, nil, false, &out)
	if len(out) > 0 {
		sort.SliceStable(out, func(a, b int) bool { return locKey(out[a].Loc) < locKey(out[b].Loc) })
		return out
	}
	if _, err := CompileTenantSchema(doc); err != nil {
		msg := strings.ReplaceAll(err.Error(), tenantSchemaURL, "the schema")
		out = append(out, Problem{Type: "invalid_schema", Msg: "Not a valid JSON schema: " + Shorten(msg).(string)})
	}
	return out
}

// nameMaps are keywords whose value maps names to schemas: their keys are names, not keywords.
var nameMaps = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true,
	"dependentSchemas": true, "dependencies": true}

// outsideRefs walks a schema; names says v is a map from names to schemas rather than a schema.
func outsideRefs(v any, loc []any, names bool, out *[]Problem) {
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			at := append(append([]any{}, loc...), k)
			switch {
			case names:
				outsideRefs(sub, at, false, out)
			case refKeywords[k]:
				if s, ok := sub.(string); ok && !strings.HasPrefix(s, "#") {
					*out = append(*out, Problem{Loc: at, Type: KindExternalRef, Input: s,
						Msg: fmt.Sprintf("%s %q points outside the schema; only references inside it (starting with #) are allowed.", k, Shorten(s))})
				}
			case dataKeywords[k]:
			default:
				outsideRefs(sub, at, nameMaps[k], out)
			}
		}
	case []any:
		for i, sub := range v {
			outsideRefs(sub, append(append([]any{}, loc...), i), false, out)
		}
	}
}
