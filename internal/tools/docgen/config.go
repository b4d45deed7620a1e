package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// setting is one field of config.Config as its source declares it.
type setting struct {
	field, env, def string
	secret          bool
}

// configurationTable reads internal/config/config.go, not the compiled package, since the fields' doc
// comments are the descriptions. Fields that follow one comment without a blank line are one row, as the
// comment speaks of them together; Go field names in the text become the variables that set them.
func configurationTable(root string) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(root, "internal/config/config.go"), nil, parser.ParseComments)
	if err != nil {
		return "", err
	}
	st := configStruct(f)
	if st == nil {
		return "", fmt.Errorf("internal/config/config.go: no Config struct")
	}
	type row struct {
		doc      string
		settings []setting
	}
	var rows []row
	envOf := map[string]string{}
	lastLine := -1
	for _, fl := range st.Fields.List {
		if fl.Tag == nil || len(fl.Names) != 1 {
			continue
		}
		tagText, _ := strconv.Unquote(fl.Tag.Value)
		tag := reflect.StructTag(tagText)
		env := tag.Get("env")
		if env == "" {
			continue
		}
		s := setting{field: fl.Names[0].Name, env: env, def: tag.Get("default"), secret: tag.Get("secret") == "true"}
		envOf[s.field] = env
		line := fset.Position(fl.Pos()).Line
		if fl.Doc == nil && len(rows) > 0 && line == lastLine+1 {
			rows[len(rows)-1].settings = append(rows[len(rows)-1].settings, s)
		} else {
			doc := ""
			if fl.Doc != nil {
				doc = fl.Doc.Text()
			}
			rows = append(rows, row{doc: doc, settings: []setting{s}})
		}
		lastLine = line
	}
	var b strings.Builder
	b.WriteString("| Variable | Default | Meaning |\n|---|---|---|\n")
	for _, r := range rows {
		var vars, defs []string
		for _, s := range r.settings {
			v := "`" + s.env + "`"
			if s.secret {
				v += " (secret)"
			}
			vars = append(vars, v)
			d := "—"
			if s.def != "" {
				d = "`" + s.def + "`"
			}
			defs = append(defs, d)
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", strings.Join(vars, "<br>"), strings.Join(defs, "<br>"),
			cell(fieldsToEnv(r.doc, envOf)))
	}
	return b.String(), nil
}

func configStruct(f *ast.File) *ast.StructType {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, sp := range gd.Specs {
			if ts, ok := sp.(*ast.TypeSpec); ok && ts.Name.Name == "Config" {
				st, _ := ts.Type.(*ast.StructType)
				return st
			}
		}
	}
	return nil
}

var ident = regexp.MustCompile(`\b[A-Z][A-Za-z0-9]*\b`)

// fieldsToEnv names settings as their users set them: `LOOPWORK_TASK_LEASE` rather than TaskLease.
func fieldsToEnv(doc string, envOf map[string]string) string {
	return ident.ReplaceAllStringFunc(doc, func(w string) string {
		if env, ok := envOf[w]; ok {
			return "`" + env + "`"
		}
		return w
	})
}
