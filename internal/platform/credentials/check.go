package credentials

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/httpx"
)

// checkType refuses a credential type the provider does not accept.
func checkType(p *provider, t platformapi.CredentialTypeEnum) error {
	if slices.Contains(p.types, t) {
		return nil
	}
	names := make([]string, len(p.types))
	for i, t := range p.types {
		names[i] = string(t)
	}
	return httpx.Invalid([]any{"body", "credential_type"}, "credential_type",
		fmt.Sprintf("Provider %s accepts credential_type %s, not %s.", p.name, strings.Join(names, " or "), t))
}

// checkData validates a secret against the provider's schema. The items it returns never carry the
// value (no input, and messages built from the keyword alone), because the value is the secret.
func checkData(p *provider, data map[string]any) error {
	// Through JSON again: the validator wants json.Number where encoding/json gave float64.
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	err = p.compiled.Validate(doc)
	if err == nil {
		return checkConnection(p, data)
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err
	}
	var items []httpx.ValidationItem
	collect(verr, &items)
	return httpx.InvalidItems(items)
}

// collect turns the leaves of the validator's error tree into items located under body.data.
func collect(e *jsonschema.ValidationError, out *[]httpx.ValidationItem) {
	loc := []any{"body", "data"}
	for _, s := range e.InstanceLocation {
		loc = append(loc, s)
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
		for _, c := range e.Causes {
			collect(c, out)
		}
	case *kind.Required:
		for _, name := range k.Missing {
			*out = append(*out, httpx.ValidationItem{Loc: append(slices.Clip(loc), name), Type: "missing",
				Msg: fmt.Sprintf("Field %q is required by the provider's credential_schema.", name)})
		}
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			*out = append(*out, httpx.ValidationItem{Loc: append(slices.Clip(loc), name), Type: "additional_property",
				Msg: fmt.Sprintf("Unknown field %q; see the provider's credential_schema.", name)})
		}
	case *kind.AnyOf:
		// Each branch of the catalog's anyOf is a set of required fields: say which sets would do.
		*out = append(*out, httpx.ValidationItem{Loc: loc, Type: "any_of",
			Msg: "Needs one of the field sets the provider's credential_schema lists under anyOf."})
	case *kind.Type:
		*out = append(*out, httpx.ValidationItem{Loc: loc, Type: "type",
			Msg: fmt.Sprintf("Must be %s, not %s.", strings.Join(k.Want, " or "), k.Got)})
	case *kind.MinLength:
		*out = append(*out, httpx.ValidationItem{Loc: loc, Type: "string_too_short", Msg: "Must not be empty."})
	case *kind.Format:
		*out = append(*out, httpx.ValidationItem{Loc: loc, Type: "format", Msg: fmt.Sprintf("Must be a valid %s.", k.Want)})
	case *kind.Minimum:
		*out = append(*out, httpx.ValidationItem{Loc: loc, Type: "minimum", Msg: "Must be at least " + k.Want.RatString() + "."})
	case *kind.Maximum:
		*out = append(*out, httpx.ValidationItem{Loc: loc, Type: "maximum", Msg: "Must be at most " + k.Want.RatString() + "."})
	default:
		// The validator's own messages may quote the value (format, const), so only the keyword is named.
		*out = append(*out, httpx.ValidationItem{Loc: loc, Type: "invalid",
			Msg: fmt.Sprintf("Does not match the provider's credential_schema (%s).", strings.Join(k.KeywordPath(), "/"))})
	}
}
