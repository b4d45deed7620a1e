// Command tsclient writes the TypeScript client module of gen/ts: for each served OpenAPI document, a
// create<Name>Client function over openapi-fetch, typed by the paths openapi-typescript wrote beside it,
// that sends the credentials the document's security schemes declare.
//
// The credentials are read from the documents, not written into the template, so that a scheme added
// to or changed in a contract changes the client with it, and a kind of scheme the client cannot send
// stops `make generate` instead of giving a client that silently leaves it out.
package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"
)

//go:embed index.ts.tmpl
var source string

// identifier is what a scheme's name must be to name a field of the credentials.
var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// document is one contract as the template uses it.
type document struct {
	Name        string // the client's name: createPlatformClient, PlatformCredentials, …
	Module      string // the module openapi-typescript wrote for it, beside index.ts
	Path        string
	Title       string
	Version     string
	Operations  int
	Credentials []credential
	// Types are the schemas exported by name beside the client: those -types names and those they refer to.
	Types     []alias
	TypeRoots []string
}

// alias is a schema exported as a type of its own name, for the types clients write by hand (a flow's
// definition and its tasks) rather than only send and receive.
type alias struct {
	Name, Doc string
}

// credential is one option of the client's credentials and the header it fills.
type credential struct {
	Field, Header, Prefix string
	Schemes               []string
	Doc                   string
}

type spec struct {
	Info struct{ Title, Version string }
	// Paths maps each path to its methods (and shared parameters, which are not operations).
	Paths      map[string]map[string]json.RawMessage
	Components struct {
		SecuritySchemes map[string]struct {
			Type, Scheme, In, Name, Description string
		}
		Schemas map[string]json.RawMessage
	}
}

// typeRoots is the -types flag: by document name, the schemas to export with those they refer to.
type typeRoots map[string][]string

func (r typeRoots) String() string { return fmt.Sprint(map[string][]string(r)) }

func (r typeRoots) Set(v string) error {
	name, list, ok := strings.Cut(v, "=")
	if !ok || list == "" {
		return fmt.Errorf("%s: want Name=Schema[,Schema…]", v)
	}
	r[name] = append(r[name], strings.Split(list, ",")...)
	return nil
}

func main() {
	out := flag.String("out", "", "file to write (gen/ts/index.ts)")
	roots := typeRoots{}
	flag.Var(roots, "types", "Name=Schema[,Schema…]: export those schemas of document Name, and the schemas they refer to, as types")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		log.Fatal("usage: tsclient -out gen/ts/index.ts Name=gen/x/openapi.json …")
	}
	var docs []document
	for _, arg := range flag.Args() {
		name, path, ok := strings.Cut(arg, "=")
		if !ok {
			log.Fatalf("%s: want Name=path", arg)
		}
		d, err := read(name, path, roots[name])
		if err != nil {
			log.Fatalf("%s: %v", path, err)
		}
		delete(roots, name)
		docs = append(docs, d)
	}
	for name := range roots {
		log.Fatalf("-types names document %s, which is not given", name)
	}
	if err := checkExports(docs); err != nil {
		log.Fatal(err)
	}
	t := template.Must(template.New("index.ts").Parse(source))
	var b bytes.Buffer
	if err := t.Execute(&b, docs); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

func read(name, path string, typeRoots []string) (document, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return document{}, err
	}
	var s spec
	if err := json.Unmarshal(raw, &s); err != nil {
		return document{}, err
	}
	d := document{Name: name, Module: filepath.Base(filepath.Dir(path)), Path: filepath.ToSlash(path),
		Title: s.Info.Title, Version: s.Info.Version}
	for _, item := range s.Paths {
		for method := range item {
			switch method {
			case "get", "put", "post", "delete", "patch", "head", "options", "trace":
				d.Operations++
			}
		}
	}
	// Sorted, so that the output does not depend on map order.
	names := make([]string, 0, len(s.Components.SecuritySchemes))
	for n := range s.Components.SecuritySchemes {
		names = append(names, n)
	}
	sort.Strings(names)
	byField := map[string]int{} // index into d.Credentials
	for _, n := range names {
		sc := s.Components.SecuritySchemes[n]
		var c credential
		switch {
		case sc.Type == "http" && strings.EqualFold(sc.Scheme, "bearer"),
			// Swagger 2.0 has no bearer scheme: /v1 declares its bearer credential as an apiKey in the
			// Authorization header, whose value is "Bearer <key or token>" as its description says.
			sc.Type == "apiKey" && sc.In == "header" && strings.EqualFold(sc.Name, "Authorization"):
			c = credential{Field: "token", Header: "Authorization", Prefix: "Bearer "}
		case sc.Type == "apiKey" && sc.In == "header":
			c = credential{Field: n, Header: sc.Name}
		default:
			return document{}, fmt.Errorf("security scheme %s (%s %s in %s): the client cannot send it", n, sc.Type, sc.Scheme, sc.In)
		}
		if !identifier.MatchString(c.Field) {
			return document{}, fmt.Errorf("security scheme %s: its name is not a TypeScript identifier", n)
		}
		if i, ok := byField[c.Field]; ok {
			d.Credentials[i].Schemes = append(d.Credentials[i].Schemes, n)
			continue
		}
		c.Schemes = []string{n}
		c.Doc = firstSentence(sc.Description)
		byField[c.Field] = len(d.Credentials)
		d.Credentials = append(d.Credentials, c)
	}
	types, err := aliases(s.Components.Schemas, typeRoots)
	if err != nil {
		return document{}, err
	}
	d.Types, d.TypeRoots = types, typeRoots
	return d, nil
}

// schemaRef matches a reference to a component schema, in a schema's JSON.
var schemaRef = regexp.MustCompile(`"\$ref":\s*"#/components/schemas/([^"/]+)"`)

// aliases answers the roots and every schema they refer to, directly or not, sorted by name.
func aliases(schemas map[string]json.RawMessage, roots []string) ([]alias, error) {
	seen := map[string]bool{}
	queue := append([]string(nil), roots...)
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if seen[n] {
			continue
		}
		raw, ok := schemas[n]
		if !ok {
			return nil, fmt.Errorf("-types: the document has no schema %s", n)
		}
		seen[n] = true
		for _, m := range schemaRef.FindAllSubmatch(raw, -1) {
			queue = append(queue, string(m[1]))
		}
	}
	var out []alias
	for n := range seen {
		if !identifier.MatchString(n) {
			return nil, fmt.Errorf("-types: schema %s: its name is not a TypeScript identifier", n)
		}
		var sch struct{ Description string }
		if err := json.Unmarshal(schemas[n], &sch); err != nil {
			return nil, fmt.Errorf("schema %s: %w", n, err)
		}
		out = append(out, alias{Name: n, Doc: firstSentence(sch.Description)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// checkExports refuses a schema exported under a name the module already exports, which TypeScript would
// refuse too, but later and less clearly.
func checkExports(docs []document) error {
	taken := map[string]string{"ApiError": "the module", "ok": "the module"}
	for _, d := range docs {
		for _, n := range []string{d.Module, d.Name + "Credentials", d.Name + "Client", "create" + d.Name + "Client"} {
			taken[n] = "the module"
		}
	}
	for _, d := range docs {
		for _, a := range d.Types {
			if by, dup := taken[a.Name]; dup {
				return fmt.Errorf("schema %s of %s: %s already exports that name", a.Name, d.Path, by)
			}
			taken[a.Name] = d.Path
		}
	}
	return nil
}

// firstSentence is the start of a scheme's description, on one line, for a doc comment.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return strings.ReplaceAll(s, "*/", "*\\/")
}
