// Package filter is the one compiler of the /v1 shared job filters (Document 1 §4.1). Every route that
// selects jobs (list, count, ids, bulk tag, cancel, delete, export) builds a Set from its own generated
// parameters and compiles it to a parameterised WHERE clause: values, JSON paths included, travel as
// query parameters and are never spliced into SQL.
package filter

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/loopwork/loopwork/internal/httpx"
)

// Set holds every shared filter; a route fills the fields its contract names and leaves the rest zero.
type Set struct {
	CreatedStartDate, CreatedEndDate     *time.Time
	CompletedStartDate, CompletedEndDate *time.Time
	Tags, NotTags                        []string
	UseTagGroups                         *bool
	StatusIn                             []string
	Correct                              *string
	Reviewed                             []string
	InputSearch, ResponseSearch          *string
	IdSearch, MetadataSearch             *string
	BatchId, FeedbackSearch              *string
	IdGreaterThan, IdLessThan            *int64
	InputPath, ResponsePath              *string
	InputValue, ResponseValue            *string
	InputMatchType, ResponseMatchType    *string
	FeedbackTags                         []string
	OnlyIfFeedback, FirstIncorrect       *bool
	Edited, Relabeled                    *bool
	ScoreGreaterThan, ScoreLessThan      *float64
	TrustScoreGreaterThan                *float64
	TrustScoreLessThan                   *float64
	FeedbackMessageCreatedBefore         *time.Time
	// JobIds restricts to these ids (the export route's jobIds).
	JobIds []int64
}

// FromParams copies the filters out of a generated parameters struct by field name. Generated structs
// name the filters exactly as Set does, with pointers to values, slices or enum string types.
func FromParams(params any) Set {
	var s Set
	dst := reflect.ValueOf(&s).Elem()
	src := reflect.Indirect(reflect.ValueOf(params))
	for _, m := range fieldsOf(src.Type()) {
		f := src.Field(m.src)
		if f.Kind() == reflect.Pointer && f.IsNil() {
			continue
		}
		f = reflect.Indirect(f)
		d := dst.Field(m.dst)
		switch {
		case d.Kind() == reflect.Slice && f.Kind() == reflect.Slice:
			out := reflect.MakeSlice(d.Type(), f.Len(), f.Len())
			for j := 0; j < f.Len(); j++ {
				out.Index(j).Set(f.Index(j).Convert(d.Type().Elem()))
			}
			d.Set(out)
		case d.Kind() == reflect.Pointer:
			v := reflect.New(d.Type().Elem())
			v.Elem().Set(f.Convert(d.Type().Elem()))
			d.Set(v)
		}
	}
	return s
}

// fieldPair is a field of Set and the parameters field of the same name.
type fieldPair struct{ dst, src int }

// pairs maps each parameters struct type to its fields that Set has, found once per type (looking
// fields up by name on every request cost 3% of a job list's CPU).
var pairs sync.Map // reflect.Type -> []fieldPair

func fieldsOf(t reflect.Type) []fieldPair {
	if v, ok := pairs.Load(t); ok {
		return v.([]fieldPair)
	}
	set := reflect.TypeOf(Set{})
	var out []fieldPair
	for i := 0; i < set.NumField(); i++ {
		if f, ok := t.FieldByName(set.Field(i).Name); ok && len(f.Index) == 1 {
			out = append(out, fieldPair{dst: i, src: f.Index[0]})
		}
	}
	pairs.Store(t, out)
	return out
}

// Problem is a filter value the schema accepts but the filter cannot use; the route answers 400
// naming Param.
type Problem struct {
	Param, Msg string
}

func (p *Problem) Error() string { return p.Param + ": " + p.Msg }

// HTTP is the /v1 answer to the problem: 400 validation_failed naming the query parameter.
func (p *Problem) HTTP() error {
	return httpx.InvalidV1([]any{"query", p.Param}, "value_error", p.Msg)
}

// Where is a compiled filter: SQL over the jobs table aliased j, and its arguments.
type Where struct {
	SQL  string
	Args []any
}

type builder struct {
	conds []string
	args  []any
	base  int
}

func (b *builder) arg(v any) string {
	b.args = append(b.args, v)
	return fmt.Sprintf("$%d", b.base+len(b.args))
}

func (b *builder) add(format string, vals ...any) {
	ph := make([]any, len(vals))
	for i, v := range vals {
		ph[i] = b.arg(v)
	}
	b.conds = append(b.conds, fmt.Sprintf(format, ph...))
}

// Compile turns the set into conditions ANDed together. argBase is the number of arguments already in
// the query (the first filter argument is $argBase+1).
func (s Set) Compile(argBase int) (Where, error) {
	b := &builder{base: argBase}
	if s.CreatedStartDate != nil {
		b.add("j.created_at >= %s", *s.CreatedStartDate)
	}
	if s.CreatedEndDate != nil {
		b.add("j.created_at < %s", *s.CreatedEndDate)
	}
	if s.CompletedStartDate != nil {
		b.add("j.completed_at >= %s", *s.CompletedStartDate)
	}
	if s.CompletedEndDate != nil {
		b.add("j.completed_at < %s", *s.CompletedEndDate)
	}
	if err := s.tags(b); err != nil {
		return Where{}, err
	}
	if len(s.NotTags) > 0 {
		b.add("NOT (j.tags && %s::text[])", pqArray(s.NotTags))
	}
	if len(s.StatusIn) > 0 {
		b.add("j.status = ANY(%s::text[])", pqArray(s.StatusIn))
	}
	if s.Correct != nil {
		switch *s.Correct {
		case "true", "false":
			b.add("j.correct = %s::boolean", *s.Correct == "true")
		case "null":
			b.conds = append(b.conds, "j.correct IS NULL")
		default:
			return Where{}, &Problem{"correct", "must be true, false or null"}
		}
	}
	if len(s.Reviewed) > 0 {
		if err := s.reviewed(b); err != nil {
			return Where{}, err
		}
	}
	for _, t := range []struct {
		v   *string
		col string
	}{{s.InputSearch, "j.input"}, {s.ResponseSearch, "j.response"}, {s.MetadataSearch, "j.metadata"}} {
		if t.v != nil {
			b.add(t.col+"::text ILIKE %s", likePattern(*t.v))
		}
	}
	if s.IdSearch != nil {
		if strings.Trim(*s.IdSearch, "0123456789") != "" || *s.IdSearch == "" {
			return Where{}, &Problem{"idSearch", "must be digits"}
		}
		b.add("j.id::text LIKE %s", *s.IdSearch+"%")
	}
	if s.BatchId != nil {
		b.add("j.batch_id = %s", *s.BatchId)
	}
	if s.FeedbackSearch != nil {
		b.add("EXISTS (SELECT 1 FROM job_feedback f WHERE f.job_id = j.id AND f.message ILIKE %s)", likePattern(*s.FeedbackSearch))
	}
	if s.IdGreaterThan != nil {
		b.add("j.id > %s", *s.IdGreaterThan)
	}
	if s.IdLessThan != nil {
		b.add("j.id < %s", *s.IdLessThan)
	}
	if err := jsonMatch(b, "input", "j.input", s.InputPath, s.InputValue, s.InputMatchType); err != nil {
		return Where{}, err
	}
	if err := jsonMatch(b, "response", "j.response", s.ResponsePath, s.ResponseValue, s.ResponseMatchType); err != nil {
		return Where{}, err
	}
	if len(s.FeedbackTags) > 0 {
		b.add("j.feedback_tags && %s::text[]", pqArray(s.FeedbackTags))
	}
	if s.OnlyIfFeedback != nil && *s.OnlyIfFeedback {
		b.conds = append(b.conds, "j.feedback_count > 0")
	}
	for _, t := range []struct {
		v   *bool
		col string
	}{{s.FirstIncorrect, "j.first_incorrect"}, {s.Edited, "j.edited"}, {s.Relabeled, "j.relabeled"}} {
		if t.v != nil {
			b.add(t.col+" = %s", *t.v)
		}
	}
	for _, t := range []struct {
		v  *float64
		op string
	}{{s.ScoreGreaterThan, "j.score > %s"}, {s.ScoreLessThan, "j.score < %s"},
		{s.TrustScoreGreaterThan, "j.trust_score > %s"}, {s.TrustScoreLessThan, "j.trust_score < %s"}} {
		if t.v != nil {
			b.add(t.op, *t.v)
		}
	}
	if s.FeedbackMessageCreatedBefore != nil {
		b.add("EXISTS (SELECT 1 FROM job_feedback f WHERE f.job_id = j.id AND f.created_at < %s)", *s.FeedbackMessageCreatedBefore)
	}
	if len(s.JobIds) > 0 {
		b.add("j.id = ANY(%s::bigint[])", pqInt64Array(s.JobIds))
	}
	if len(b.conds) == 0 {
		return Where{SQL: "TRUE"}, nil
	}
	return Where{SQL: strings.Join(b.conds, " AND "), Args: b.args}, nil
}

// tags: all listed tags, or with useTagGroups an OR of comma-separated AND-groups.
func (s Set) tags(b *builder) error {
	if len(s.Tags) == 0 {
		return nil
	}
	if s.UseTagGroups == nil || !*s.UseTagGroups {
		b.add("j.tags @> %s::text[]", pqArray(s.Tags))
		return nil
	}
	var groups []string
	for _, g := range s.Tags {
		var members []string
		for _, t := range strings.Split(g, ",") {
			if t = strings.TrimSpace(t); t != "" {
				members = append(members, t)
			}
		}
		if len(members) == 0 {
			return &Problem{"tags", "a tag group is empty"}
		}
		groups = append(groups, "j.tags @> "+b.arg(pqArray(members))+"::text[]")
	}
	b.conds = append(b.conds, "("+strings.Join(groups, " OR ")+")")
	return nil
}

// reviewed: any of the listed review states. The contract's enums differ by route, so an unknown value is
// refused here as well as by the validator; left out, it would leave an empty "()" in the SQL.
func (s Set) reviewed(b *builder) error {
	var verdicts []string
	var parts []string
	for _, r := range s.Reviewed {
		switch r {
		case "CORRECT", "NOT_CORRECT":
			verdicts = append(verdicts, r)
		case "NOT_REVIEWED":
			parts = append(parts, "j.reviewed IS NULL")
		case "REVIEWED":
			parts = append(parts, "j.reviewed IS NOT NULL")
		default:
			return &Problem{"reviewed", "must be CORRECT, NOT_CORRECT, REVIEWED or NOT_REVIEWED"}
		}
	}
	if len(verdicts) > 0 {
		parts = append(parts, "j.reviewed = ANY("+b.arg(pqArray(verdicts))+"::text[])")
	}
	b.conds = append(b.conds, "("+strings.Join(parts, " OR ")+")")
	return nil
}

// likePattern makes a case-insensitive substring pattern in which % and _ are ordinary characters.
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}

// ParsePath reads a path written inside braces: {} is the root, {a.b.0} the element 0 of the array b
// of the object a. The result is the text[] path of PostgreSQL's #> and #>> operators.
func ParsePath(p string) ([]string, error) {
	if len(p) < 2 || p[0] != '{' || p[len(p)-1] != '}' {
		return nil, fmt.Errorf("must be written inside braces, such as {} or {a.b.0}")
	}
	inner := p[1 : len(p)-1]
	if inner == "" {
		return []string{}, nil
	}
	segs := strings.Split(inner, ".")
	for _, s := range segs {
		if s == "" {
			return nil, fmt.Errorf("has an empty segment (two dots, or a dot at an end)")
		}
	}
	return segs, nil
}

// Lookup is the value at path in a decoded JSON document as PostgreSQL's #> operator finds it, so that a
// field read in Go (the measurer's) and the same path in a filter name the same value: on an array a step
// is an integer as C's strtol reads it (blanks before it and a sign allowed, nothing after), a negative
// one counting from the end. Missing is nil.
func Lookup(doc any, path []string) any {
	v := doc
	for _, step := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[step]
		case []any:
			i, err := strconv.ParseInt(strings.TrimLeft(step, " \t\n\v\f\r"), 10, 32)
			if i < 0 {
				i += int64(len(x))
			}
			if err != nil || i < 0 || i >= int64(len(x)) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// jsonMatch compiles a path/value/match-type triple (see the contract's inputMatchType).
func jsonMatch(b *builder, name, col string, path, value, match *string) error {
	pathParam, valueParam, matchParam := name+"Path", name+"Value", name+"MatchType"
	if path == nil {
		switch {
		case value != nil:
			return &Problem{valueParam, "needs " + pathParam}
		case match != nil:
			return &Problem{matchParam, "needs " + pathParam}
		}
		return nil
	}
	segs, err := ParsePath(*path)
	if err != nil {
		return &Problem{pathParam, err.Error()}
	}
	p := b.arg(pqArray(segs))
	at, text := fmt.Sprintf("(%s #> %s::text[])", col, p), fmt.Sprintf("(%s #>> %s::text[])", col, p)
	mode := "IS"
	if match != nil {
		mode = *match
	}
	switch mode {
	case "IS", "IS_NOT", "CONTAINS", "CONTAINS_NOT", "IS_NOT_EMPTY":
	default:
		// Said before anything else: "inputValue is required with inputMatchType=0" would point at the
		// wrong parameter.
		return &Problem{matchParam, "must be IS, IS_NOT, CONTAINS, CONTAINS_NOT or IS_NOT_EMPTY"}
	}
	if value == nil && mode != "IS_NOT_EMPTY" {
		if match != nil {
			return &Problem{valueParam, "is required with " + matchParam + "=" + mode}
		}
		b.conds = append(b.conds, at+" IS NOT NULL") // the path alone: it exists
		return nil
	}
	switch mode {
	case "IS", "IS_NOT":
		// Strings compare without their quotes and scalars as their JSON text; objects and arrays
		// compare as JSON, so a compact rendering in the query matches whatever spacing was stored.
		v := b.arg(*value)
		cond := fmt.Sprintf("(%s = %s OR (jsonb_typeof(%s) IN ('object', 'array') AND %s = %s::jsonb))",
			text, v, at, at, b.arg(jsonOrNull(*value)))
		if mode == "IS_NOT" {
			cond = "NOT coalesce(" + cond + ", false)"
		}
		b.conds = append(b.conds, cond)
	case "CONTAINS":
		b.add(text+" ILIKE %s", likePattern(*value))
	case "CONTAINS_NOT":
		b.add("coalesce("+text+", '') NOT ILIKE %s", likePattern(*value))
	case "IS_NOT_EMPTY":
		b.conds = append(b.conds, fmt.Sprintf("(%s IS NOT NULL AND %s NOT IN ('null'::jsonb, '\"\"'::jsonb, '[]'::jsonb, '{}'::jsonb))", at, at))
	}
	return nil
}

// jsonOrNull returns the value when it is a JSON object or array that PostgreSQL's jsonb accepts, so it
// can be compared as jsonb. Anything else cannot equal a stored document, and casting it would fail the
// query: a \u0000 or a lone surrogate escape is valid JSON that jsonb refuses.
func jsonOrNull(s string) *string {
	t := strings.TrimLeft(s, " \t\r\n")
	if t == "" || (t[0] != '{' && t[0] != '[') || !json.Valid([]byte(s)) || !httpx.JSONStorable([]byte(s)) {
		return nil
	}
	return &s
}
