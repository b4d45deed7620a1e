package documents_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/blob"
	"github.com/loopwork/loopwork/internal/platform/documents"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestExpiredUploadsAreDiscarded: a staged upload past its expiry loses its file and its row, and its
// document returns to the state it had before the upload — unless another upload is still staged.
func TestExpiredUploadsAreDiscarded(t *testing.T) {
	t.Parallel()
	db := testkit.DB(t)
	files, err := blob.NewLocal(t.TempDir(), blob.NewSigner([]byte("k")), func(context.Context) string { return "http://x" })
	if err != nil {
		t.Fatal(err)
	}
	s := documents.New(documents.Deps{DB: db, Files: files, Logger: slog.New(slog.DiscardHandler)})
	var org uuid.UUID
	if err := db.Get(&org, `INSERT INTO organizations (name) VALUES ('sweep') RETURNING id`); err != nil {
		t.Fatal(err)
	}
	doc := func(before string) uuid.UUID {
		id := uuid.New()
		db.MustExec(`INSERT INTO documents (id, organization_id, name, database_type, status, status_before)
			VALUES ($1, $2, $3, 'csv', 'uploading', $4)`, id, org, id.String(), before)
		return id
	}
	stage := func(d uuid.UUID, expired bool) string {
		id := uuid.New()
		key := "org/" + org.String() + "/documents/" + d.String() + "/" + id.String() + ".csv"
		if _, err := files.Put(ctx, key, strings.NewReader("a\n1\n"), "text/csv"); err != nil {
			t.Fatal(err)
		}
		expires := "now() + interval '1 hour'"
		if expired {
			expires = "now() - interval '1 second'"
		}
		db.MustExec(`INSERT INTO document_uploads (id, organization_id, document_id, file_key, file_name, file_size, expires_at)
			VALUES ($1, $2, $3, $4, 'a.csv', 4, `+expires+`)`, id, org, d, key)
		return key
	}
	wasReady, stillStaged := doc("ready"), doc("empty")
	gone := stage(wasReady, true)
	stage(stillStaged, true)
	kept := stage(stillStaged, false)
	if err := documents.Expire(ctx, s); err != nil {
		t.Fatal(err)
	}
	status := func(id uuid.UUID) string {
		var st string
		db.Get(&st, `SELECT status FROM documents WHERE id = $1`, id)
		return st
	}
	if status(wasReady) != "ready" || status(stillStaged) != "uploading" {
		t.Fatalf("statuses %s and %s", status(wasReady), status(stillStaged))
	}
	if _, err := files.Stat(ctx, gone); err == nil {
		t.Fatal("an expired upload's file stays")
	}
	if _, err := files.Stat(ctx, kept); err != nil {
		t.Fatal("a staged upload's file went")
	}
	var left int
	db.Get(&left, `SELECT count(*) FROM document_uploads`)
	if left != 1 {
		t.Fatalf("%d uploads left, want 1", left)
	}
}
