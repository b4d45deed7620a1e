package testkit

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
)

// ImportCSV creates a document named name through api, uploads file as its CSV and imports it,
// waiting until the import has ended (at most 30 s), and answers the document as it ended.
func ImportCSV(t testing.TB, api *platformapi.ClientWithResponses, name, file string) platformapi.DocumentFileResponse {
	t.Helper()
	ctx := context.Background()
	doc, err := api.CreateDocumentWithResponse(ctx, platformapi.DocumentFileCreateRequest{Name: name})
	Expect(t, doc, err, http.StatusCreated)
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	p, _ := w.CreateFormFile("file", "data.csv")
	p.Write([]byte(file))
	w.Close()
	up, err := api.StartDocumentUploadWithBodyWithResponse(ctx, doc.JSON201.Id, w.FormDataContentType(), &b)
	Expect(t, up, err, http.StatusCreated)
	done, err := api.CompleteDocumentUploadWithResponse(ctx, doc.JSON201.Id, platformapi.FileUploadCompleteRequest{UploadId: up.JSON201.UploadId})
	Expect(t, done, err, http.StatusAccepted)
	return WaitForImport(t, api, doc.JSON201.Id)
}

// WaitForImport polls a document until its import has ended, and fails the test after 30 s.
func WaitForImport(t testing.TB, api *platformapi.ClientWithResponses, id uuid.UUID) platformapi.DocumentFileResponse {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		got, err := api.GetDocumentWithResponse(context.Background(), id)
		Expect(t, got, err, http.StatusOK)
		if got.JSON200.Status != platformapi.DocumentFileStatusProcessing {
			return *got.JSON200
		}
		if time.Now().After(deadline) {
			t.Fatalf("the import is still processing: %s", got.Body)
		}
	}
}

// Download GETs a link that needs no authentication and answers its body, failing the test unless
// the answer is 200.
func Download(t testing.TB, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, res.StatusCode, b)
	}
	return string(b)
}
