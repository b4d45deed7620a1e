package main

import (
	"fmt"
	"strings"
)

// header opens the file in place of pg_dump's own preamble. It names the major version the dump came
// from, because pg_dump of another major version prints some objects differently; the minor version,
// which changes nothing in the output, is left out.
const header = `-- The schema of a fully migrated loopwork database, River's tables included, as pg_dump of
-- PostgreSQL %d prints it (--schema-only --no-owner --no-privileges). Written by ` + "`make schema`" + `;
-- do not edit it: change db/migrations and run make schema. A test fails when it is stale.
`

// normalize keeps what the dump says about the schema and drops what differs between runs or between
// pg_dump's minor versions: the preamble (the versions the dump was made by and from, the session
// settings a restore starts with, which newer versions extend), the closing comment, the \restrict
// guard whose key is random on every run, and the SET lines pg_dump puts between objects. Two dumps of
// the same schema by the same major version are then the same bytes.
func normalize(raw []byte, major int) []byte {
	lines := strings.Split(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n")
	start, end := 0, len(lines)
	for i := 1; i < len(lines); i++ {
		if lines[i-1] == "--" && strings.HasPrefix(lines[i], "-- Name: ") {
			start = i - 1
			break
		}
	}
	for i := len(lines) - 1; i > start; i-- {
		if lines[i] == "-- PostgreSQL database dump complete" && lines[i-1] == "--" {
			end = i - 1
			break
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, header, major)
	b.WriteString("\n")
	body := lines[start:end]
	for i := 0; i < len(body); i++ {
		if restoreOnly(body, i) {
			if i+1 < len(body) && body[i+1] == "" {
				i++ // and the blank line pg_dump writes after it
			}
			continue
		}
		b.WriteString(body[i] + "\n")
	}
	return []byte(strings.TrimRight(b.String(), "\n") + "\n")
}

// restoreOnly reports whether body[i] is a statement pg_dump adds for the restore rather than for an
// object: a \restrict or \unrestrict guard, or a top-level SET, which pg_dump writes as a paragraph of
// its own (a SET line inside a function's body is not one).
func restoreOnly(body []string, i int) bool {
	line := body[i]
	if strings.HasPrefix(line, `\restrict `) || strings.HasPrefix(line, `\unrestrict `) {
		return true
	}
	if !strings.HasPrefix(line, "SET ") || !strings.HasSuffix(line, ";") {
		return false
	}
	return (i == 0 || body[i-1] == "") && (i+1 == len(body) || body[i+1] == "")
}
