package filter_test

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/v1/filter"
)

// mark prefixes text the caller controls with a character the compiler never writes, so that any of it
// spliced into the SQL shows.
const mark = "\uE000"

var placeholder = regexp.MustCompile(`\$[0-9]+`)

// outsideQuotes is the SQL with its string literals blanked, so that only the compiler's own syntax is
// checked below.
func outsideQuotes(sql string) string {
	var b strings.Builder
	in := false
	for _, c := range sql {
		if c == '\'' {
			in = !in
		} else if !in {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// split turns one fuzzed string into a list parameter: absent when empty, else its |-separated items.
func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "|")
}

func marked(items []string) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = mark + s
	}
	return out
}

// withDB is a database holding the fixture's jobs when TEST_DATABASE_URL names a server (make test and
// make fuzz start one), else nil: the checks that need PostgreSQL are then left out.
func withDB(f *testing.F) (*sqlx.DB, uuid.UUID) {
	if os.Getenv("TEST_DATABASE_URL") == "" {
		return nil, uuid.Nil
	}
	db, app, _ := seed(f)
	return db, app
}

// FuzzCompile builds filter sets from fuzzed query values and checks what every route relies on: the
// compiler never panics; it refuses a set only with a Problem naming a parameter the set carries; and
// a compiled set is well-formed SQL whose placeholders are exactly $base+1..$base+len(args), in which
// no text the caller sent appears (it all travels as arguments), which shifts with the base, and which
// PostgreSQL runs over the fixture's jobs for any text TextGuard lets through (no 500 for bad input).
func FuzzCompile(f *testing.F) {
	db, app := withDB(f)
	f.Add(uint16(0xFFFF), "red|big", true, "true", "CORRECT|NOT_REVIEWED", "100%_sure", "12", "{a.b.0}", `{"k":1}`, "IS", "b7", uint8(1))
	f.Add(uint16(0x0F0F), "a, b|c", false, "null", "REVIEWED", `\%'; DROP TABLE jobs; --`, "0", "{}", "x", "IS_NOT_EMPTY", "", uint8(0))
	f.Add(uint16(0x00F0), " , ", true, "maybe", "NOT_CORRECT", "$1", "12a", "a.b", "$2", "CONTAINS", "'", uint8(200))
	f.Add(uint16(0x3000), "", false, "false", "", "", "", "{a..b}", "", "IS_NOT", "", uint8(3))
	f.Add(uint16(0xFFFF), "x", false, "true", "ALL", "y", "9", "{0}", "[1]", "SIMILAR", "z", uint8(9))
	f.Fuzz(func(t *testing.T, present uint16, tags string, groups bool, correct, reviewed, search, idSearch,
		path, value, match, batch string, base uint8) {
		has := func(bit int) bool { return present&(1<<bit) != 0 }
		opt := func(bit int, s string) *string {
			if !has(bit) {
				return nil
			}
			return &s
		}
		var s filter.Set
		if groups {
			s.Tags, s.UseTagGroups = marked(split(tags)), &groups
		} else {
			s.Tags, s.NotTags, s.StatusIn, s.FeedbackTags = marked(split(tags)), marked(split(batch)), marked(split(search)), marked(split(value))
		}
		s.Correct, s.Reviewed = opt(0, correct), split(reviewed)
		s.InputSearch, s.MetadataSearch, s.FeedbackSearch = opt(1, mark+search), opt(2, mark+value), opt(3, mark+batch)
		s.IdSearch, s.BatchId = opt(4, idSearch), opt(5, mark+batch)
		// The input triple takes the fuzzed text as it is (a value that is a JSON object compiles
		// differently); the response triple's path and value are marked.
		s.InputPath, s.InputValue, s.InputMatchType = opt(6, path), opt(7, value), opt(8, match)
		s.ResponsePath, s.ResponseValue, s.ResponseMatchType = opt(9, "{"+mark+path+"}"), opt(10, mark+value), opt(11, match)
		if has(12) {
			n := int64(len(search))
			s.IdGreaterThan, s.IdLessThan = &n, &n
		}

		w, err := s.Compile(int(base))
		if err != nil {
			var p *filter.Problem
			if !errors.As(err, &p) || p.Msg == "" {
				t.Fatalf("%+v: not a Problem: %v", s, err)
			}
			// The parameter named is one the request carries, or one it lacks and the message says is required.
			f := reflect.ValueOf(s).FieldByName(strings.ToUpper(p.Param[:1]) + p.Param[1:])
			if !f.IsValid() || (f.IsZero() && !strings.HasPrefix(p.Msg, "is required")) {
				t.Fatalf("%+v: the problem %q names %q, which the set does not carry", s, p.Msg, p.Param)
			}
			return
		}
		if strings.Contains(w.SQL, mark) {
			t.Fatalf("caller text in the SQL: %s", w.SQL)
		}
		syntax := outsideQuotes(w.SQL)
		if strings.Count(syntax, "(") != strings.Count(syntax, ")") || strings.Contains(syntax, "()") ||
			strings.Contains(syntax, "  ") || strings.HasPrefix(syntax, " ") || strings.HasSuffix(syntax, " ") {
			t.Fatalf("malformed SQL: %s", w.SQL)
		}
		seen := map[int]bool{}
		for _, ph := range placeholder.FindAllString(syntax, -1) {
			n, _ := strconv.Atoi(ph[1:])
			if n <= int(base) || n > int(base)+len(w.Args) {
				t.Fatalf("%s outside $%d..$%d: %s", ph, int(base)+1, int(base)+len(w.Args), w.SQL)
			}
			seen[n] = true
		}
		if len(seen) != len(w.Args) {
			t.Fatalf("%d arguments, %d of them used: %s", len(w.Args), len(seen), w.SQL)
		}
		// The same set after ten more arguments: the same conditions, numbered from there.
		w2, err := s.Compile(int(base) + 10)
		shifted := placeholder.ReplaceAllStringFunc(w.SQL, func(ph string) string {
			n, _ := strconv.Atoi(ph[1:])
			return fmt.Sprint("$", n+10)
		})
		if err != nil || w2.SQL != shifted || !reflect.DeepEqual(w2.Args, w.Args) {
			t.Fatalf("base %d: %s, base %d: %s (%v)", base, w.SQL, int(base)+10, w2.SQL, err)
		}
		for _, a := range w.Args {
			if arr, ok := a.(pq.StringArray); ok && arr == nil {
				t.Fatalf("a nil array argument is NULL, which matches nothing: %s", w.SQL)
			}
		}
		if db == nil || !text(tags, correct, reviewed, search, idSearch, path, value, match, batch) {
			return
		}
		w, _ = s.Compile(1)
		var n int
		if err := db.Get(&n, `SELECT count(*) FROM jobs j WHERE j.app_id = $1 AND `+w.SQL, append([]any{app}, w.Args...)...); err != nil {
			t.Fatalf("PostgreSQL refuses %s %q: %v", w.SQL, w.Args, err)
		}
	})
}

// text says whether every value is one TextGuard lets reach a handler: UTF-8 without NUL.
func text(values ...string) bool {
	for _, v := range values {
		if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
			return false
		}
	}
	return true
}
