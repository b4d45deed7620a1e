package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/testkit/testdb"
)

const committed = "../../../db/schema.sql"

// TestSchemaIsCurrent fails when db/schema.sql is not the schema the migrations make: a migration was
// added or changed and the file was not written again.
func TestSchemaIsCurrent(t *testing.T) {
	t.Parallel()
	db := testdb.EmptyDB(t)
	got, err := migrateAndDump(context.Background(), testdb.DSN(t, db))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(committed)
	if err != nil {
		t.Fatalf("db/schema.sql: %v (run make schema)", err)
	}
	if string(got) != string(want) {
		t.Fatalf("db/schema.sql is stale: run make schema and commit it\n%s%s", testkit.FirstDifference(string(want), string(got)),
			majorVersionNote(string(want), string(got)))
	}
}

// majorVersionNote says so when the file's header names another major version than the server the test
// ran on, as then the difference may be pg_dump's, not the schema's.
func majorVersionNote(committed, dumped string) string {
	a, b := strings.SplitN(committed, "\n", 3), strings.SplitN(dumped, "\n", 3)
	if len(a) > 1 && len(b) > 1 && a[1] != b[1] {
		return "\n(the file and this server differ in PostgreSQL's major version; compose.yaml names the one the file follows)"
	}
	return ""
}

// TestNormalize: what varies between runs and minor versions is dropped, SET lines inside a function's
// body are kept, and the header names the major version.
func TestNormalize(t *testing.T) {
	t.Parallel()
	raw := "--\n-- PostgreSQL database dump\n--\n\n\\restrict abc\n\n-- Dumped from database version 15.20\n" +
		"-- Dumped by pg_dump version 15.20\n\nSET statement_timeout = 0;\nSELECT pg_catalog.set_config('search_path', '', false);\n\n" +
		"--\n-- Name: f(); Type: FUNCTION; Schema: public; Owner: -\n--\n\nCREATE FUNCTION public.f() RETURNS void\n" +
		"    LANGUAGE sql\n    AS $$\nUPDATE t\nSET n = 1;\n$$;\n\n\nSET default_tablespace = '';\n\n" +
		"--\n-- Name: t; Type: TABLE; Schema: public; Owner: -\n--\n\nCREATE TABLE public.t (n integer);\n\n\n" +
		"--\n-- PostgreSQL database dump complete\n--\n\n\\unrestrict abc\n\n"
	got := string(normalize([]byte(raw), 15))
	want := fmt.Sprintf(header, 15) + "\n--\n-- Name: f(); Type: FUNCTION; Schema: public; Owner: -\n--\n\n" +
		"CREATE FUNCTION public.f() RETURNS void\n    LANGUAGE sql\n    AS $$\nUPDATE t\nSET n = 1;\n$$;\n\n\n" +
		"--\n-- Name: t; Type: TABLE; Schema: public; Owner: -\n--\n\nCREATE TABLE public.t (n integer);\n"
	if got != want {
		t.Fatalf("normalize:\n%s\nwant:\n%s", got, want)
	}
}
