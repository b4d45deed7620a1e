package filter_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/testkit"
	"github.com/loopwork/loopwork/internal/v1/filter"
)

type job struct {
	status   string
	input    string
	response *string
	metadata string
	tags     []string
	batch    *string
	score    *float64
	correct  *bool
	reviewed *string
	first    bool
	edited   bool
	feedback []string // feedback messages; the job's feedback tags are their words
	ftags    []string
	created  time.Time
	done     *time.Time
}

var t0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// fixture: ids are 1..n in this order.
var fixture = []job{
	{status: "SCHEDULED", input: `{"a":{"b":["x","y"]},"name":"Ann"}`, tags: []string{"red", "big"}, created: t0},
	{status: "COMPLETED", input: `{"a":{"b":["z"]},"name":"Bob"}`, response: new(`{"label":"cat","ok":true}`), tags: []string{"red"},
		score: new(0.9), correct: new(true), reviewed: new("CORRECT"), created: t0.Add(time.Hour), done: new(t0.Add(2 * time.Hour)),
		feedback: []string{"Looks GOOD"}, ftags: []string{"fine"}},
	{status: "COMPLETED", input: `{"name":"Cy","n":10}`, response: new(`{"label":"dog","ok":false}`), tags: []string{"big"},
		score: new(0.2), correct: new(false), reviewed: new("NOT_CORRECT"), first: true, edited: true, created: t0.Add(2 * time.Hour),
		done: new(t0.Add(3 * time.Hour)), feedback: []string{"wrong label"}, ftags: []string{"wrong", "label"}},
	{status: "FAILED", input: `{"name":"100%_sure","empty":"","list":[]}`, metadata: `{"src":"batch-7"}`, batch: new("b7"), created: t0.Add(3 * time.Hour)},
	{status: "SUSPENDED", input: `{"obj":{"k":1},"n":"10"}`, tags: []string{"blue"}, batch: new("b7"), created: t0.Add(4 * time.Hour)},
}

func seed(t testing.TB) (*sqlx.DB, uuid.UUID, []int64) {
	t.Helper()
	db := testkit.DB(t)
	var org, app uuid.UUID
	if err := db.Get(&org, `INSERT INTO organizations (name) VALUES ('f') RETURNING id`); err != nil {
		t.Fatal(err)
	}
	if err := db.Get(&app, `INSERT INTO apps (organization_id, name) VALUES ($1, 'a') RETURNING id`, org); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, j := range fixture {
		if j.metadata == "" {
			j.metadata = "{}"
		}
		if j.tags == nil {
			j.tags = []string{}
		}
		if j.ftags == nil {
			j.ftags = []string{}
		}
		var id int64
		err := db.Get(&id, `INSERT INTO jobs (organization_id, app_id, status, processing_state, input, response, metadata, tags,
			batch_id, score, correct, reviewed, first_incorrect, edited, feedback_count, feedback_tags, created_at, completed_at)
			VALUES ($1, $2, $3, 'QUEUED', $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING id`,
			org, app, j.status, j.input, j.response, j.metadata, pqArray(j.tags), j.batch, j.score, j.correct, j.reviewed,
			j.first, j.edited, len(j.feedback), pqArray(j.ftags), j.created, j.done)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range j.feedback {
			if _, err := db.Exec(`INSERT INTO job_feedback (job_id, app_id, organization_id, message, created_at)
				VALUES ($1, $2, $3, $4, $5)`, id, app, org, m, j.created.Add(30*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		ids = append(ids, id)
	}
	return db, app, ids
}

// TestSemantics checks each filter of §4.1 against jobs built to tell the rules apart. Expected
// results are 1-based positions in the fixture.
func TestSemantics(t *testing.T) {
	t.Parallel()
	db, app, ids := seed(t)
	cases := []struct {
		name string
		set  filter.Set
		want []int
	}{
		{"no filter", filter.Set{}, []int{1, 2, 3, 4, 5}},
		{"created range is [start, end)", filter.Set{CreatedStartDate: new(t0.Add(time.Hour)), CreatedEndDate: new(t0.Add(3 * time.Hour))}, []int{2, 3}},
		{"completed range; never completed never matches", filter.Set{CompletedStartDate: new(t0)}, []int{2, 3}},
		{"tags: all of them", filter.Set{Tags: []string{"red", "big"}}, []int{1}},
		{"tags: case-sensitive", filter.Set{Tags: []string{"RED"}}, nil},
		{"tag groups: (red AND big) OR blue", filter.Set{Tags: []string{"red,big", "blue"}, UseTagGroups: new(true)}, []int{1, 5}},
		{"notTags: none of them", filter.Set{NotTags: []string{"red", "blue"}}, []int{3, 4}},
		{"statusIn", filter.Set{StatusIn: []string{"COMPLETED", "FAILED"}}, []int{2, 3, 4}},
		{"correct true", filter.Set{Correct: new("true")}, []int{2}},
		{"correct false", filter.Set{Correct: new("false")}, []int{3}},
		{"correct null", filter.Set{Correct: new("null")}, []int{1, 4, 5}},
		{"reviewed CORRECT or NOT_REVIEWED", filter.Set{Reviewed: []string{"CORRECT", "NOT_REVIEWED"}}, []int{1, 2, 4, 5}},
		{"reviewed REVIEWED (export)", filter.Set{Reviewed: []string{"REVIEWED"}}, []int{2, 3}},
		{"inputSearch ignores case", filter.Set{InputSearch: new("bob")}, []int{2}},
		{"inputSearch: % and _ are literal", filter.Set{InputSearch: new("100%_s")}, []int{4}},
		{"inputSearch: a lone % matches only a %", filter.Set{InputSearch: new("%")}, []int{4}},
		{"responseSearch skips jobs without a response", filter.Set{ResponseSearch: new("")}, []int{2, 3}},
		{"metadataSearch", filter.Set{MetadataSearch: new("BATCH-7")}, []int{4}},
		{"batchId exact", filter.Set{BatchId: new("b7")}, []int{4, 5}},
		{"feedbackSearch", filter.Set{FeedbackSearch: new("good")}, []int{2}},
		{"feedbackTags: any of them", filter.Set{FeedbackTags: []string{"label", "nope"}}, []int{3}},
		{"onlyIfFeedback", filter.Set{OnlyIfFeedback: new(true)}, []int{2, 3}},
		{"onlyIfFeedback=false: no restriction", filter.Set{OnlyIfFeedback: new(false)}, []int{1, 2, 3, 4, 5}},
		{"firstIncorrect", filter.Set{FirstIncorrect: new(true)}, []int{3}},
		{"edited=false", filter.Set{Edited: new(false)}, []int{1, 2, 4, 5}},
		{"relabeled", filter.Set{Relabeled: new(true)}, nil},
		{"score > 0.5; no score never matches", filter.Set{ScoreGreaterThan: new(0.5)}, []int{2}},
		{"score < 0.5", filter.Set{ScoreLessThan: new(0.5)}, []int{3}},
		{"feedback before", filter.Set{FeedbackMessageCreatedBefore: new(t0.Add(2 * time.Hour))}, []int{2}},
		{"path IS: element of an array", filter.Set{InputPath: new("{a.b.0}"), InputValue: new("x")}, []int{1}},
		{"path alone: exists", filter.Set{InputPath: new("{a.b}")}, []int{1, 2}},
		{"path IS on a number and on a string", filter.Set{InputPath: new("{n}"), InputValue: new("10")}, []int{3, 5}},
		{"path IS on an object, compact JSON", filter.Set{InputPath: new("{obj}"), InputValue: new(`{"k":1}`), InputMatchType: new("IS")}, []int{5}},
		{"path IS_NOT: missing paths are not equal", filter.Set{InputPath: new("{name}"), InputValue: new("Ann"), InputMatchType: new("IS_NOT")}, []int{2, 3, 4, 5}},
		{"path CONTAINS ignores case", filter.Set{InputPath: new("{name}"), InputValue: new("o"), InputMatchType: new("CONTAINS")}, []int{2}},
		{"path CONTAINS_NOT", filter.Set{InputPath: new("{name}"), InputValue: new("n"), InputMatchType: new("CONTAINS_NOT")}, []int{2, 3, 4, 5}},
		{"path IS_NOT_EMPTY", filter.Set{InputPath: new("{empty}"), InputMatchType: new("IS_NOT_EMPTY")}, nil},
		{"path IS_NOT_EMPTY on a list", filter.Set{InputPath: new("{list}"), InputMatchType: new("IS_NOT_EMPTY")}, nil},
		{"root path IS_NOT_EMPTY", filter.Set{InputPath: new("{}"), InputMatchType: new("IS_NOT_EMPTY")}, []int{1, 2, 3, 4, 5}},
		{"response path", filter.Set{ResponsePath: new("{ok}"), ResponseValue: new("true")}, []int{2}},
		{"idSearch prefix", filter.Set{IdSearch: new("0")}, nil},
		{"combined with AND", filter.Set{StatusIn: []string{"COMPLETED"}, Tags: []string{"big"}}, []int{3}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, err := tc.set.Compile(1)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			if err := db.Select(&got, `SELECT j.id FROM jobs j WHERE j.app_id = $1 AND `+w.SQL+` ORDER BY j.id`,
				append([]any{app}, w.Args...)...); err != nil {
				t.Fatalf("%s: %v", w.SQL, err)
			}
			var want []int64
			for _, pos := range tc.want {
				want = append(want, ids[pos-1])
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %v, want %v\nSQL: %s", got, want, w.SQL)
			}
		})
	}
	// idSearch is a prefix of the decimal id.
	w, _ := filter.Set{IdSearch: new("1")}.Compile(0)
	var n int
	if err := db.Get(&n, `SELECT count(*) FROM jobs j WHERE `+w.SQL, w.Args...); err != nil || n < 1 {
		t.Fatalf("idSearch 1: %d %v", n, err)
	}
	w, _ = filter.Set{IdGreaterThan: new(ids[1]), IdLessThan: new(ids[4])}.Compile(0)
	if err := db.Get(&n, `SELECT count(*) FROM jobs j WHERE `+w.SQL, w.Args...); err != nil || n != 2 {
		t.Fatalf("id range (exclusive): %d %v", n, err)
	}
}

// TestProblemsNameTheParameter: values the schema lets through but the filter cannot use.
func TestProblemsNameTheParameter(t *testing.T) {
	t.Parallel()
	for param, set := range map[string]filter.Set{
		"inputPath":         {InputPath: new("a.b")},
		"responsePath":      {ResponsePath: new("{a..b}")},
		"inputValue":        {InputValue: new("x")},
		"responseMatchType": {ResponseMatchType: new("IS")},
		"inputValue ":       {InputPath: new("{a}"), InputMatchType: new("CONTAINS")},
		"idSearch":          {IdSearch: new("12a")},
		"tags":              {Tags: []string{" , "}, UseTagGroups: new(true)},
	} {
		_, err := set.Compile(0)
		var p *filter.Problem
		if !errors.As(err, &p) || p.Param != trim(param) {
			t.Errorf("%s: got %v", param, err)
		}
	}
}

func trim(s string) string {
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}

// TestFromParams reads every filter out of a generated parameters struct, enums included.
func TestFromParams(t *testing.T) {
	t.Parallel()
	p := v1api.ListJobsParams{StatusIn: &[]string{"COMPLETED"}, Correct: new(v1api.ListJobsParamsCorrect("null")), Tags: &[]string{"a"}, ScoreGreaterThan: new(float32(0.5)),
		InputPath: new("{x}"), IdGreaterThan: new(int64(3)), CreatedStartDate: new(t0)}
	s := filter.FromParams(p)
	if !reflect.DeepEqual(s.StatusIn, []string{"COMPLETED"}) || s.Tags[0] != "a" || *s.ScoreGreaterThan != 0.5 ||
		*s.InputPath != "{x}" || *s.IdGreaterThan != 3 || !s.CreatedStartDate.Equal(t0) || *s.Correct != "null" {
		t.Fatalf("%+v", s)
	}
}
