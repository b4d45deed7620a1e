package documents_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestCSVRevisions: a document is created empty, filled by an upload that is previewed then imported
// (BOM, CRLF and LF mixed, quoted line breaks, blank lines), read by rows and columns and downloaded
// as uploaded; a bad file fails naming its line while the first revision stays readable; a good one
// replaces it; deleting removes the table.
func TestCSVRevisions(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	doc := newDoc(t, c, "Sales 2026 (EU)")
	if doc.Status != platformapi.DocumentFileStatusEmpty || doc.DatabaseType != platformapi.DocumentFileResponseDatabaseTypeCsv {
		t.Fatalf("created %+v", doc)
	}
	dup, err := c.API.CreateDocumentWithResponse(ctx, platformapi.DocumentFileCreateRequest{Name: doc.Name})
	testkit.Expect(t, dup, err, http.StatusConflict)

	file := []byte("\xEF\xBB\xBFid;name;note\r\n1;Ann;\"two\nlines\"\n\n2;Bob;back\\slash\ttab\r\n3;Cé;\n4;D;x\n5;E;y\n6;F;z")
	up := upload(t, c, doc.Id, file)
	if up.FileSize != len(file) || up.MaxBytes != 104857600 || up.FileName != "data.csv" {
		t.Fatalf("staged %+v", up)
	}
	got, _ := c.API.GetDocumentWithResponse(ctx, doc.Id)
	if got.JSON200.Status != platformapi.DocumentFileStatusUploading {
		t.Fatalf("while staged: %s", got.Body)
	}
	ct, body := form(nil, "upload_id", up.UploadId)
	pv, err := c.API.PreviewDocumentUploadWithBodyWithResponse(ctx, doc.Id, ct, body)
	testkit.Expect(t, pv, err, http.StatusOK)
	m := pv.JSON200.Metadata
	if m.Delimiter != ";" || m.TotalRows != 6 || m.TotalColumns != 3 || m.FileSize != len(file) || !m.HasHeader ||
		len(pv.JSON200.PreviewRows) != 5 || pv.JSON200.PreviewRows[0][2] != "two\nlines" || strings.Join(pv.JSON200.Headers, ",") != "id,name,note" {
		t.Fatalf("preview %s", pv.Body)
	}
	res, err := c.API.CompleteDocumentUploadWithResponse(ctx, doc.Id, platformapi.FileUploadCompleteRequest{UploadId: up.UploadId, Delimiter: new(";")})
	testkit.Expect(t, res, err, http.StatusAccepted)
	again, err := c.API.CompleteDocumentUploadWithResponse(ctx, doc.Id, platformapi.FileUploadCompleteRequest{UploadId: up.UploadId})
	testkit.Expect(t, again, err, http.StatusConflict)
	ready := wait(t, c, doc.Id)
	if ready.Status != platformapi.DocumentFileStatusReady || *ready.RevisionCount != 1 || *ready.TotalRows != 6 ||
		*ready.CurrentTableName != "sales_2026_eu" || ready.CurrentFileId == nil || ready.Error != nil {
		t.Fatalf("imported %+v", ready)
	}
	cols, err := c.API.ListDocumentColumnsWithResponse(ctx, doc.Id)
	testkit.Expect(t, cols, err, http.StatusOK)
	if strings.Join(cols.JSON200.Columns, ",") != "id,name,note" || cols.JSON200.ColumnCount != 3 {
		t.Fatalf("columns %s", cols.Body)
	}
	page := rows(t, c, doc.Id, 1, 4)
	if page.Total != 6 || len(page.Rows) != 4 || page.Rows[0][2] != "two\nlines" || page.Rows[1][2] != "back\\slash\ttab" || page.Rows[2][1] != "Cé" {
		t.Fatalf("rows %+v", page)
	}
	if p2 := rows(t, c, doc.Id, 2, 4); len(p2.Rows) != 2 || p2.Rows[1][0] != "6" {
		t.Fatalf("page 2 %+v", p2)
	}
	dl, err := c.API.GetDocumentDownloadUrlWithResponse(ctx, doc.Id)
	testkit.Expect(t, dl, err, http.StatusOK)
	if b := testkit.Download(t, dl.JSON200.DownloadUrl); b != string(file) {
		t.Fatalf("downloaded %q", b)
	}

	// A ragged row fails the import at its line; the first revision stays current and readable.
	failed := imported(t, c, doc.Id, []byte("id;name;note\n1;a;b\n2;b\n"), platformapi.FileUploadCompleteRequest{Delimiter: new(";")})
	if failed.Status != platformapi.DocumentFileStatusFailed || failed.Error == nil || !strings.Contains(*failed.Error, "line 3") ||
		*failed.RevisionCount != 1 || *failed.TotalRows != 6 || *failed.CurrentFileId != *ready.CurrentFileId {
		t.Fatalf("failed import %+v", failed)
	}
	if p := rows(t, c, doc.Id, 1, 100); p.Total != 6 || len(p.Rows) != 6 {
		t.Fatalf("after a failed import %+v", p)
	}
	second := imported(t, c, doc.Id, []byte("x,y\n1,2\n"), platformapi.FileUploadCompleteRequest{HasHeader: new(false), TableName: new("pairs")})
	if second.Status != platformapi.DocumentFileStatusReady || *second.RevisionCount != 2 || *second.TotalRows != 2 || *second.CurrentTableName != "pairs" {
		t.Fatalf("second revision %+v", second)
	}
	if p := rows(t, c, doc.Id, 1, 10); strings.Join(p.Columns, ",") != "column_1,column_2" || p.Rows[0][0] != "x" {
		t.Fatalf("second revision's rows %+v", p)
	}
	var tables int
	orgDB(t, env, c.OrgID).Get(&tables, `SELECT count(*) FROM pg_tables WHERE tablename IN ('sales_2026_eu', 'pairs')`)
	if tables != 1 {
		t.Fatalf("%d tables, want only the current one", tables)
	}
	del, err := c.API.DeleteDocumentWithResponse(ctx, doc.Id)
	testkit.Expect(t, del, err, http.StatusNoContent)
	gone, err := c.API.GetDocumentWithResponse(ctx, doc.Id)
	testkit.Expect(t, gone, err, http.StatusNotFound)
	orgDB(t, env, c.OrgID).Get(&tables, `SELECT count(*) FROM pg_tables WHERE tablename = 'pairs'`)
	if tables != 0 {
		t.Fatal("the table outlived its document")
	}
	// Its stored files go by a job queued with the deletion.
	dir := filepath.Join(env.Config.StorageDir, "org", c.OrgID.String(), "documents", doc.Id.String())
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
		if len(files) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the files outlived their document: %v", files)
		}
	}
}

// TestDocumentTenancy: every operation on another organization's document, or with its upload,
// answers like a random id.
func TestDocumentTenancy(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	a := env.User(t, env.Org(t), auth.RoleAppUser)
	b := env.User(t, env.Org(t), auth.RoleOrgAdmin)
	doc := newDoc(t, a, "private")
	imported(t, a, doc.Id, []byte("k\nv\n"), platformapi.FileUploadCompleteRequest{})
	staged := upload(t, a, doc.Id, []byte("k\nw\n"))
	mine := newDoc(t, b, "mine")
	random := uuid.New()
	for _, id := range []uuid.UUID{doc.Id, random} {
		r1, err := b.API.GetDocumentWithResponse(ctx, id)
		testkit.Expect(t, r1, err, http.StatusNotFound)
		r2, err := b.API.ListDocumentRowsWithResponse(ctx, id, nil)
		testkit.Expect(t, r2, err, http.StatusNotFound)
		r3, err := b.API.ListDocumentColumnsWithResponse(ctx, id)
		testkit.Expect(t, r3, err, http.StatusNotFound)
		r4, err := b.API.GetDocumentDownloadUrlWithResponse(ctx, id)
		testkit.Expect(t, r4, err, http.StatusNotFound)
		ct, body := form([]byte("a\n1\n"))
		r5, err := b.API.StartDocumentUploadWithBodyWithResponse(ctx, id, ct, body)
		testkit.Expect(t, r5, err, http.StatusNotFound)
		ct, body = form([]byte("a\n1\n"))
		r6, err := b.API.PreviewDocumentUploadWithBodyWithResponse(ctx, id, ct, body)
		testkit.Expect(t, r6, err, http.StatusNotFound)
		r7, err := b.API.CompleteDocumentUploadWithResponse(ctx, id, platformapi.FileUploadCompleteRequest{UploadId: staged.UploadId})
		testkit.Expect(t, r7, err, http.StatusNotFound)
		r8, err := b.API.DeleteDocumentWithResponse(ctx, id)
		testkit.Expect(t, r8, err, http.StatusNotFound)
	}
	// Another organization's upload id does not work on one's own document either.
	ct, body := form(nil, "upload_id", staged.UploadId)
	pv, err := b.API.PreviewDocumentUploadWithBodyWithResponse(ctx, mine.Id, ct, body)
	testkit.Expect(t, pv, err, http.StatusNotFound)
	cp, err := b.API.CompleteDocumentUploadWithResponse(ctx, mine.Id, platformapi.FileUploadCompleteRequest{UploadId: staged.UploadId})
	testkit.Expect(t, cp, err, http.StatusNotFound)
	list, err := b.API.ListDocumentsWithResponse(ctx, nil)
	testkit.Expect(t, list, err, http.StatusOK)
	if list.JSON200.Total != 1 || list.JSON200.Documents[0].Id != mine.Id {
		t.Fatalf("b lists %s", list.Body)
	}
	still, err := a.API.GetDocumentWithResponse(ctx, doc.Id)
	testkit.Expect(t, still, err, http.StatusOK)
}
