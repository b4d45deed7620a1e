package exports_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/loopwork/loopwork/gen/v1api"
)

// formatCases are the option combinations that change a file's bytes, each with the file expected for
// the jobs of seedFixed (their ids are %[1]d and %[2]d).
var formatCases = []struct {
	name   string
	params v1api.ExportJobResponsesParams
	want   string
}{
	{"jsonl flattened (the default)", v1api.ExportJobResponsesParams{},
		"{\"id\":%[1]d,\"status\":\"COMPLETED\",\"batch_id\":\"b1\",\"tags\":[\"red\"],\"created_at\":\"2026-01-02T03:04:05Z\",\"completed_at\":\"2026-01-02T03:05:00Z\",\"score\":0.9,\"trust_score\":null,\"correct\":null,\"reviewed\":\"NOT_REVIEWED\",\"edited\":false,\"relabeled\":false,\"error\":null,\"metadata\":{},\"input.n\":1,\"input.doc.name\":\"a, \\\"b\\\"\",\"response.items\":[{\"qty\":2,\"sku\":\"x\"},{\"qty\":1,\"sku\":\"y\"}],\"response.total\":12.5,\"response.amount\":3,\"response.total_note\":\"round\"}\n{\"id\":%[2]d,\"status\":\"SCHEDULED\",\"batch_id\":null,\"tags\":[],\"created_at\":\"2026-01-02T03:04:06Z\",\"completed_at\":null,\"score\":null,\"trust_score\":null,\"correct\":null,\"reviewed\":\"NOT_REVIEWED\",\"edited\":false,\"relabeled\":false,\"error\":null,\"metadata\":{},\"input.n\":2,\"response\":null}\n"},
	{"jsonl nested", v1api.ExportJobResponsesParams{FlattenedOutput: new(false)},
		"{\"id\":%[1]d,\"status\":\"COMPLETED\",\"batch_id\":\"b1\",\"tags\":[\"red\"],\"created_at\":\"2026-01-02T03:04:05Z\",\"completed_at\":\"2026-01-02T03:05:00Z\",\"score\":0.9,\"trust_score\":null,\"correct\":null,\"reviewed\":\"NOT_REVIEWED\",\"edited\":false,\"relabeled\":false,\"error\":null,\"metadata\":{},\"input\":{\"n\":1,\"doc\":{\"name\":\"a, \\\"b\\\"\"}},\"response\":{\"items\":[{\"qty\":2,\"sku\":\"x\"},{\"qty\":1,\"sku\":\"y\"}],\"total\":12.5,\"amount\":3,\"total_note\":\"round\"}}\n{\"id\":%[2]d,\"status\":\"SCHEDULED\",\"batch_id\":null,\"tags\":[],\"created_at\":\"2026-01-02T03:04:06Z\",\"completed_at\":null,\"score\":null,\"trust_score\":null,\"correct\":null,\"reviewed\":\"NOT_REVIEWED\",\"edited\":false,\"relabeled\":false,\"error\":null,\"metadata\":{},\"input\":{\"n\":2},\"response\":null}\n"},
	{"csv nested", v1api.ExportJobResponsesParams{Csv: new(true), FlattenedOutput: new(false)},
		"id,status,batch_id,tags,created_at,completed_at,score,trust_score,correct,reviewed,edited,relabeled,error,metadata,input,response\r\n%[1]d,COMPLETED,b1,\"[\"\"red\"\"]\",2026-01-02T03:04:05Z,2026-01-02T03:05:00Z,0.9,,,NOT_REVIEWED,false,false,,{},\"{\"\"n\"\":1,\"\"doc\"\":{\"\"name\"\":\"\"a, \\\"\"b\\\"\"\"\"}}\",\"{\"\"items\"\":[{\"\"qty\"\":2,\"\"sku\"\":\"\"x\"\"},{\"\"qty\"\":1,\"\"sku\"\":\"\"y\"\"}],\"\"total\"\":12.5,\"\"amount\"\":3,\"\"total_note\"\":\"\"round\"\"}\"\r\n%[2]d,SCHEDULED,,[],2026-01-02T03:04:06Z,,,,,NOT_REVIEWED,false,false,,{},\"{\"\"n\"\":2}\",\r\n"},
	{"csv flattened", v1api.ExportJobResponsesParams{Csv: new(true)},
		"id,status,batch_id,tags,created_at,completed_at,score,trust_score,correct,reviewed,edited,relabeled,error,metadata,input.n,input.doc.name,response.items,response.total,response.amount,response.total_note\r\n%[1]d,COMPLETED,b1,\"[\"\"red\"\"]\",2026-01-02T03:04:05Z,2026-01-02T03:05:00Z,0.9,,,NOT_REVIEWED,false,false,,{},1,\"a, \"\"b\"\"\",\"[{\"\"qty\"\":2,\"\"sku\"\":\"\"x\"\"},{\"\"qty\"\":1,\"\"sku\"\":\"\"y\"\"}]\",12.5,3,round\r\n%[2]d,SCHEDULED,,[],2026-01-02T03:04:06Z,,,,,NOT_REVIEWED,false,false,,{},2,,,,,\r\n"},
	{"csv semicolon, quoted, no header", v1api.ExportJobResponsesParams{Csv: new(true), FlattenedOutput: new(false),
		FieldDelimiter: new(v1api.Semicolon), QuoteValues: new(true), ExcludeHeaderRow: new(true)},
		"\"%[1]d\";\"COMPLETED\";\"b1\";\"[\"\"red\"\"]\";\"2026-01-02T03:04:05Z\";\"2026-01-02T03:05:00Z\";\"0.9\";\"\";\"\";\"NOT_REVIEWED\";\"false\";\"false\";\"\";\"{}\";\"{\"\"n\"\":1,\"\"doc\"\":{\"\"name\"\":\"\"a, \\\"\"b\\\"\"\"\"}}\";\"{\"\"items\"\":[{\"\"qty\"\":2,\"\"sku\"\":\"\"x\"\"},{\"\"qty\"\":1,\"\"sku\"\":\"\"y\"\"}],\"\"total\"\":12.5,\"\"amount\"\":3,\"\"total_note\"\":\"\"round\"\"}\"\r\n\"%[2]d\";\"SCHEDULED\";\"\";\"[]\";\"2026-01-02T03:04:06Z\";\"\";\"\";\"\";\"\";\"NOT_REVIEWED\";\"false\";\"false\";\"\";\"{}\";\"{\"\"n\"\":2}\";\"\"\r\n"},
	{"csv pipe, tables, annotations", v1api.ExportJobResponsesParams{Csv: new(true), FieldDelimiter: new(v1api.Pipe),
		FlattenTables: new(true), AnnotationPostfixKeys: new([]string{"_note"})},
		"id|status|batch_id|tags|created_at|completed_at|score|trust_score|correct|reviewed|edited|relabeled|error|metadata|input.n|input.doc.name|response.items.qty|response.items.sku|response.total|response.total_note|response.amount\r\n%[1]d|COMPLETED|b1|\"[\"\"red\"\"]\"|2026-01-02T03:04:05Z|2026-01-02T03:05:00Z|0.9|||NOT_REVIEWED|false|false||{}|1|\"a, \"\"b\"\"\"|2|x|12.5|round|3\r\n%[1]d|COMPLETED|b1|\"[\"\"red\"\"]\"|2026-01-02T03:04:05Z|2026-01-02T03:05:00Z|0.9|||NOT_REVIEWED|false|false||{}|1|\"a, \"\"b\"\"\"|1|y|12.5|round|3\r\n%[2]d|SCHEDULED||[]|2026-01-02T03:04:06Z|||||NOT_REVIEWED|false|false||{}|2||||||\r\n"},
	{"jsonl with feedback and history", v1api.ExportJobResponsesParams{FlattenedOutput: new(false), WithFeedback: new(true),
		WithHistory: new(true), JobIds: new([]int64{0})},
		"{\"id\":%[1]d,\"status\":\"COMPLETED\",\"batch_id\":\"b1\",\"tags\":[\"red\"],\"created_at\":\"2026-01-02T03:04:05Z\",\"completed_at\":\"2026-01-02T03:05:00Z\",\"score\":0.9,\"trust_score\":null,\"correct\":null,\"reviewed\":\"NOT_REVIEWED\",\"edited\":false,\"relabeled\":false,\"error\":null,\"metadata\":{},\"input\":{\"n\":1,\"doc\":{\"name\":\"a, \\\"b\\\"\"}},\"response\":{\"items\":[{\"qty\":2,\"sku\":\"x\"},{\"qty\":1,\"sku\":\"y\"}],\"total\":12.5,\"amount\":3,\"total_note\":\"round\"},\"feedback\":[{\"message\":\"looks fine\",\"feedback_tags\":[\"ok\"],\"correct\":true,\"created_at\":\"2026-01-03T00:00:00Z\"}],\"feedback_tags\":[],\"history\":[{\"at\":\"2026-01-02T03:05:00Z\",\"event\":\"STATUS_CHANGED\",\"actor\":\"ann@example.com\",\"from_status\":\"SCHEDULED\",\"to_status\":\"COMPLETED\",\"details\":null}]}\n"},
}

// TestFileBytes: every option combination that changes the output gives exactly the expected bytes.
func TestFileBytes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ids := f.seedFixed(t)
	f.env.DB.MustExec(`INSERT INTO job_history (job_id, app_id, organization_id, at, event, actor, from_status, to_status)
		VALUES ($1, $2, $3, '2026-01-02T03:05:00Z', 'STATUS_CHANGED', 'ann@example.com', 'SCHEDULED', 'COMPLETED')`, ids[0], f.app, f.org)
	for _, tc := range formatCases {
		p := tc.params
		if p.JobIds != nil {
			p.JobIds = new([]int64{ids[0]})
		}
		_, got := f.export(t, f.admin, p)
		if os.Getenv("EXPORTS_PRINT") != "" {
			t.Logf("=== %s\n%q", tc.name, got)
			continue
		}
		if want := fmt.Sprintf(tc.want, ids[0], ids[1]); got != want {
			t.Errorf("%s:\ngot  %q\nwant %q", tc.name, got, want)
		}
	}
}
