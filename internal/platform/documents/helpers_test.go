package documents_test

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/testkit"
)

var ctx = context.Background()

// form builds a multipart body: a file part when file is not nil, then the other fields.
func form(file []byte, fields ...string) (string, io.Reader) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if file != nil {
		p, _ := w.CreateFormFile("file", "data.csv")
		p.Write(file)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		w.WriteField(fields[i], fields[i+1])
	}
	w.Close()
	return w.FormDataContentType(), &b
}

func newDoc(t *testing.T, c *testkit.Caller, name string) platformapi.DocumentFileResponse {
	t.Helper()
	res, err := c.API.CreateDocumentWithResponse(ctx, platformapi.DocumentFileCreateRequest{Name: name})
	testkit.Expect(t, res, err, http.StatusCreated)
	return *res.JSON201
}

func upload(t *testing.T, c *testkit.Caller, doc uuid.UUID, file []byte) platformapi.UploadStartResponse {
	t.Helper()
	ct, body := form(file)
	res, err := c.API.StartDocumentUploadWithBodyWithResponse(ctx, doc, ct, body)
	testkit.Expect(t, res, err, http.StatusCreated)
	return *res.JSON201
}

// imported uploads, completes and waits for the import to end, returning the document.
func imported(t *testing.T, c *testkit.Caller, doc uuid.UUID, file []byte, req platformapi.FileUploadCompleteRequest) platformapi.DocumentFileResponse {
	t.Helper()
	req.UploadId = upload(t, c, doc, file).UploadId
	res, err := c.API.CompleteDocumentUploadWithResponse(ctx, doc, req)
	testkit.Expect(t, res, err, http.StatusAccepted)
	if res.JSON202.Status != platformapi.DocumentFileStatusProcessing {
		t.Fatalf("completed: %s", res.Body)
	}
	return wait(t, c, doc)
}

// wait polls the document until its import has ended.
func wait(t *testing.T, c *testkit.Caller, doc uuid.UUID) platformapi.DocumentFileResponse {
	t.Helper()
	return testkit.WaitForImport(t, c.API, doc)
}

func rows(t *testing.T, c *testkit.Caller, doc uuid.UUID, page, limit int) platformapi.DatabaseRowsResponse {
	t.Helper()
	res, err := c.API.ListDocumentRowsWithResponse(ctx, doc, &platformapi.ListDocumentRowsParams{Page: new(page), Limit: new(limit)})
	testkit.Expect(t, res, err, http.StatusOK)
	return *res.JSON200
}
