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
	}
}

func main() {
	out := flag.String("out", "", "file to write (gen/ts/index.ts)")
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
		d, err := read(name, path)
		if err != nil {
			log.Fatalf("%s: %v", path, err)
		}
		docs = append(docs, d)
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

func read(name, path string) (document, error) {
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
	return d, nil
}

// firstSentence is the start of a scheme's description, on one line, for a doc comment.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return strings.ReplaceAll(s, "*/", "*\\/")
}
