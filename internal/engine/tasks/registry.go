// Package tasks is the registry of task types: for each type, the JSON schema of its parameters and of its
// output, which parameters hold jq expressions or templates, and the runtime options (dynamic data) a caller may
// pick from. The flow validator, the flows service, the engine and the conversational agent all read it, so that a
// type is described once.
//
// Conventions the descriptions rely on: a task's input is the output of its predecessor when it has exactly one,
// an object keyed by predecessor name holding their outputs when it has several, and the execution's input when
// it has none. Template parameters (Type.Templates) are strings in which each `{{ expr }}` is replaced by the
// result of the jq expression expr run on the task's input (strings as they are, other values as JSON).
package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Type is one task type.
type Type struct {
	Name        string         // "transform", ...
	Description string         // one paragraph, for people and language models choosing a type
	Parameters  map[string]any // JSON schema (draft 2020-12) of the task's `parameters` object
	Output      map[string]any // JSON schema of the task's output
	// JQFields names the parameters that hold jq expressions (compiled by the validator), e.g. ["expression"].
	JQFields []string
	// Templates names the parameters in which `{{ expr }}` segments of strings are jq expressions (see the
	// package documentation): a string parameter, or every string inside an object or array parameter. The
	// validator compiles each segment.
	Templates []string
	// TaskRefs names the parameters that hold the name of another task of the same flow; the validator checks
	// that the task exists.
	TaskRefs []string
	// Schemas names the parameters that hold a JSON schema the tenant wrote; the validator checks that it
	// compiles and refers only inside itself (CheckTenantSchema).
	Schemas []string
	// CredentialRefs names the parameters that hold the id of one of the organization's credentials. Saving a
	// flow that names one requires the right to use it, and each attempt checks that right again before the
	// task runs.
	CredentialRefs []CredentialRef
	// Dynamic returns the runtime options a caller may pick for this type (nil: none).
	Dynamic func(ctx context.Context, org uuid.UUID, src Source) (map[string]any, error)
	// Example is a task of this type as a flow definition holds it, shown in the contract and docs/ (nil: none).
	Example *Example
}

// CredentialRef is a parameter that names a credential. OrDocument says the parameter may instead name one of
// the organization's document files (sql_query's database_id), which is not a credential and needs no right.
type CredentialRef struct {
	Param      string
	OrDocument bool
}

// CredentialParams returns the ids the task's parameters name as credentials, by parameter, for a task of
// this type: only values that are UUIDs (the parameters schema reports the others).
func (t Type) CredentialParams(params map[string]any) map[string]uuid.UUID {
	var out map[string]uuid.UUID
	for _, r := range t.CredentialRefs {
		s, ok := params[r.Param].(string)
		if !ok {
			continue
		}
		id, err := uuid.Parse(s)
		if err != nil {
			continue
		}
		if out == nil {
			out = map[string]uuid.UUID{}
		}
		out[r.Param] = id
	}
	return out
}

// Source supplies what dynamic data is made of. Implemented by the server (flows service) over PostgreSQL
// and configuration; tests use a small struct of their own.
type Source interface {
	Models(ctx context.Context) ([]Model, error)                       // the configured LLM models
	SQLDatabases(ctx context.Context, org uuid.UUID) ([]Option, error) // the organization's SQL databases
	Credentials(ctx context.Context, org uuid.UUID) ([]Option, error)  // the organization's credentials (id, name, provider)
}

// Model is one configured language model.
type Model struct {
	Name     string
	Provider string
}

// Option is one thing of an organization a parameter may name.
type Option struct {
	ID   string `db:"id"`
	Name string `db:"name"`
	Kind string `db:"kind"` // provider or database type; may be empty
}

// ErrUnknownType is returned for a type name the registry does not hold.
var ErrUnknownType = errors.New("unknown task type")

// Registry holds task types with their parameter schemas compiled once. It is immutable after New and safe for
// concurrent use.
type Registry struct {
	types  []Type
	byName map[string]int
	params []*jsonschema.Schema
}

// New compiles every parameters schema; it fails on a bad schema, an empty or duplicate name, or a JQFields,
// Templates, TaskRefs or Schemas entry that the parameters schema does not declare.
func New(types ...Type) (*Registry, error) {
	r := &Registry{byName: make(map[string]int, len(types))}
	for _, t := range types {
		if t.Name == "" {
			return nil, errors.New("tasks: a type has no name")
		}
		if _, dup := r.byName[t.Name]; dup {
			return nil, fmt.Errorf("tasks: duplicate type %q", t.Name)
		}
		sch, err := compile(t.Name, "parameters", t.Parameters)
		if err != nil {
			return nil, err
		}
		if _, err := compile(t.Name, "output", t.Output); err != nil {
			return nil, err
		}
		if err := checkFieldNames(t); err != nil {
			return nil, err
		}
		if t.Example != nil && t.Example.Type != t.Name {
			return nil, fmt.Errorf("tasks: the example of type %q is a task of type %q", t.Name, t.Example.Type)
		}
		r.byName[t.Name] = len(r.types)
		r.types = append(r.types, t)
		r.params = append(r.params, sch)
	}
	return r, nil
}

// compile compiles one schema. The schema goes through JSON first: the compiler accepts only what
// encoding/json produces, while schemas written in Go use ints and typed slices.
func compile(typeName, part string, schema map[string]any) (*jsonschema.Schema, error) {
	if schema == nil {
		schema = map[string]any{}
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("tasks: %s schema of %q: %w", part, typeName, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("tasks: %s schema of %q: %w", part, typeName, err)
	}
	url := "mem://loopwork/tasks/" + typeName + "/" + part + ".json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("tasks: %s schema of %q: %w", part, typeName, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tasks: %s schema of %q: %w", part, typeName, err)
	}
	return sch, nil
}

func checkFieldNames(t Type) error {
	props, _ := t.Parameters["properties"].(map[string]any)
	for _, list := range [][]string{t.JQFields, t.Templates, t.TaskRefs, t.Schemas} {
		for _, f := range list {
			if _, ok := props[f]; !ok {
				return fmt.Errorf("tasks: type %q names parameter %q, which its schema does not declare", t.Name, f)
			}
		}
	}
	return nil
}

// Builtin returns the built-in types, those of builtinTypes with the examples of builtinExamples; it panics
// only on a programming error in their schemas. They are declared there alone: the contract's enum, the integrations catalog, the
// executors and docs/ are checked against this registry (Mismatch), so adding a type shows what else must
// follow.
func Builtin() *Registry {
	r, err := New(withExamples(builtinTypes())...)
	if err != nil {
		panic(err)
	}
	return r
}

// Lookup returns the type of that name.
func (r *Registry) Lookup(name string) (*Type, bool) {
	i, ok := r.byName[name]
	if !ok {
		return nil, false
	}
	return &r.types[i], true
}

// Names returns the type names in declaration order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.types))
	for i, t := range r.types {
		names[i] = t.Name
	}
	return names
}

// DynamicData returns the runtime options of a type, {} when it has none.
func (r *Registry) DynamicData(ctx context.Context, org uuid.UUID, typeName string, src Source) (map[string]any, error) {
	t, ok := r.Lookup(typeName)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownType, typeName)
	}
	if t.Dynamic == nil {
		return map[string]any{}, nil
	}
	if src == nil {
		return nil, errors.New("tasks: dynamic data needs a source")
	}
	return t.Dynamic(ctx, org, src)
}

// OutputSchema returns the JSON schema of a type's output, nil for an unknown type.
func (r *Registry) OutputSchema(typeName string) map[string]any {
	t, ok := r.Lookup(typeName)
	if !ok {
		return nil
	}
	if t.Output == nil {
		return map[string]any{}
	}
	return t.Output
}
