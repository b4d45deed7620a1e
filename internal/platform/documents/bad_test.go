package documents_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestBadUploads: what cannot be a CSV file is refused at the upload with a 422 that says why, a file
// over 100 MB with a 413; previews and completions with bad options answer 422 or 404.
func TestBadUploads(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	doc := newDoc(t, c, "bad")
	for name, file := range map[string][]byte{
		"empty":        {},
		"blank":        []byte("\xEF\xBB\xBF \r\n\n"),
		"binary":       append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 100)...),
		"latin-1 text": []byte("name\nJos\xe9\n"),
	} {
		ct, body := form(file)
		res, err := c.API.StartDocumentUploadWithBodyWithResponse(ctx, doc.Id, ct, body)
		testkit.Expect(t, res, err, http.StatusUnprocessableEntity)
		if !strings.Contains(string(res.Body), `"loc":["body","file"]`) {
			t.Errorf("%s: %s", name, res.Body)
		}
	}
	// 100 MB and one byte, streamed: refused without being kept.
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		p, _ := mw.CreateFormFile("file", "big.csv")
		line := bytes.Repeat([]byte("a,b\n"), 1<<14)
		for n := 0; n <= 104857600; n += len(line) {
			p.Write(line)
		}
		mw.Close()
		pw.Close()
	}()
	big, err := c.API.StartDocumentUploadWithBodyWithResponse(ctx, doc.Id, mw.FormDataContentType(), pr)
	testkit.Expect(t, big, err, http.StatusRequestEntityTooLarge)

	up := upload(t, c, doc.Id, []byte("a,b\n1,2\n"))
	for name, fields := range map[string][]string{
		"neither":        {},
		"bad delimiter":  {"upload_id", up.UploadId, "delimiter", `"`},
		"long delimiter": {"upload_id", up.UploadId, "delimiter", ";;"},
		"bad has_header": {"upload_id", up.UploadId, "has_header", "maybe"},
	} {
		ct, body := form(nil, fields...)
		res, err := c.API.PreviewDocumentUploadWithBodyWithResponse(ctx, doc.Id, ct, body)
		if testkit.Expect(t, res, err, http.StatusUnprocessableEntity); t.Failed() {
			t.Fatal(name)
		}
	}
	ct, body := form([]byte("a,b\n"), "upload_id", up.UploadId)
	both, err := c.API.PreviewDocumentUploadWithBodyWithResponse(ctx, doc.Id, ct, body)
	testkit.Expect(t, both, err, http.StatusUnprocessableEntity)
	ct, body = form([]byte("a,b\n1,\"open\n2,3\n"))
	open, err := c.API.PreviewDocumentUploadWithBodyWithResponse(ctx, doc.Id, ct, body)
	testkit.Expect(t, open, err, http.StatusUnprocessableEntity)
	if !strings.Contains(string(open.Body), "line 2") {
		t.Errorf("open quote: %s", open.Body)
	}
	ct, body = form(nil, "upload_id", uuid.NewString())
	unknown, err := c.API.PreviewDocumentUploadWithBodyWithResponse(ctx, doc.Id, ct, body)
	testkit.Expect(t, unknown, err, http.StatusNotFound)
	for _, id := range []string{"nope", uuid.NewString()} {
		res, err := c.API.CompleteDocumentUploadWithResponse(ctx, doc.Id, platformapi.FileUploadCompleteRequest{UploadId: id})
		testkit.Expect(t, res, err, http.StatusNotFound)
	}
	withCred, err := c.API.CreateDocumentWithResponse(ctx, platformapi.DocumentFileCreateRequest{Name: "x", CredentialId: new(uuid.New())})
	testkit.Expect(t, withCred, err, http.StatusUnprocessableEntity)
}

// TestBadImports: files that pass the upload's look at their beginning but are broken further on fail
// their import with the line of the fault, and leave no table and no revision behind.
func TestBadImports(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	long := strings.Repeat("x,y\n", 3000) // past the upload's 8 KB look
	cases := []struct{ name, file, says string }{
		{"ragged", "x,y\n1,2\n3\n", "line 3: 1 fields, but the first row has 2"},
		{"invalid UTF-8", long + "\xff,\xfe\n", "line 3001: field 1 is not valid UTF-8"},
		{"NUL", long + "a\x00,b\n", "line 3001: field 1 holds a NUL byte"},
		{"open quote", "x,y\n1,\"2\n3,4\n", "line 2: a quoted field is not closed"},
		{"10,000 columns", strings.Repeat("c,", 9999) + "c\n", "line 1: 10000 columns; a document has at most 1600"},
	}
	for _, tc := range cases {
		doc := newDoc(t, c, tc.name)
		got := imported(t, c, doc.Id, []byte(tc.file), platformapi.FileUploadCompleteRequest{})
		if got.Status != platformapi.DocumentFileStatusFailed || got.Error == nil || !strings.Contains(*got.Error, tc.says) ||
			*got.RevisionCount != 0 || got.CurrentTableName != nil {
			t.Errorf("%s: %+v %v", tc.name, got, *got.Error)
		}
	}
	var leftovers int
	orgDB(t, env, c.OrgID).Get(&leftovers, `SELECT count(*) FROM pg_tables WHERE tablename LIKE '\_\_import%'`)
	if leftovers != 0 {
		t.Fatalf("%d half-imported tables", leftovers)
	}
	doc := newDoc(t, c, "header only")
	if got := imported(t, c, doc.Id, []byte("a,b\n"), platformapi.FileUploadCompleteRequest{}); got.Status != platformapi.DocumentFileStatusReady || *got.TotalRows != 0 {
		t.Fatalf("a header alone: %+v", got)
	}
}
