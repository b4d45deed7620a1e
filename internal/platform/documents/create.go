package documents

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/platform/credentials"
)

// writer refuses roles that may read documents but not change them. Every role reaches the operations
// (auth.Permissions); the narrower rule is kept here, after the request was validated.
func writer(p *auth.Principal) error {
	if !p.ManagesResources() {
		return httpx.Forbidden("changing document files requires role org_admin, app_user or integration")
	}
	return nil
}

// CreateDocument creates an empty csv document, or a sql document over a table of a registered database.
func (s *Service) CreateDocument(ctx context.Context, req platformapi.CreateDocumentRequestObject) (platformapi.CreateDocumentResponseObject, error) {
	p := auth.MustFromContext(ctx)
	if err := writer(p); err != nil {
		return nil, err
	}
	b := req.Body
	kind := "csv"
	if b.DatabaseType != nil {
		kind = string(*b.DatabaseType)
	}
	status := "empty"
	switch kind {
	case "csv":
		if b.CredentialId != nil {
			return nil, httpx.Invalid([]any{"body", "credential_id"}, "value_error", "a csv document has no credential_id: its data is uploaded")
		}
		if b.TableName != nil {
			return nil, httpx.Invalid([]any{"body", "table_name"}, "value_error", "a csv document has no table_name here: name the table when completing an upload")
		}
	case "sql":
		if b.CredentialId == nil {
			return nil, httpx.Invalid([]any{"body", "credential_id"}, "missing", "a sql document needs the credential_id of a registered SQL database")
		}
		if b.TableName == nil {
			return nil, httpx.Invalid([]any{"body", "table_name"}, "missing", "a sql document needs the table_name to read")
		}
		if _, _, err := splitTable(*b.TableName); err != nil {
			return nil, httpx.Invalid([]any{"body", "table_name"}, "value_error", err.Error())
		}
		// A sql document lets every member read the table through the credential, so naming one needs the
		// right to use it; one the caller may not use is the same 404 as one that does not exist, and its
		// provider is not revealed either.
		var provider string
		err := s.d.DB.GetContext(ctx, &provider, `SELECT c.provider FROM credentials c
			WHERE c.organization_id = $1 AND c.id = $2 AND `+credentials.UsableBy("$3"), p.OrganizationID, *b.CredentialId, p.UserID)
		if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
			return nil, httpx.NotFound("credential")
		}
		if err != nil {
			return nil, err
		}
		if provider != "sql_database" {
			return nil, httpx.Invalid([]any{"body", "credential_id"}, "value_error",
				"the credential is of provider "+provider+"; a sql document reads through a sql_database credential")
		}
		status = "ready"
	}
	var r row
	err := s.d.DB.GetContext(ctx, &r, `INSERT INTO documents (id, organization_id, user_id, name, database_type, description,
		credential_id, source_table, status, modified_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING `+columns,
		uuid.New(), p.OrganizationID, p.User(), b.Name, kind, b.Description, b.CredentialId, b.TableName, status, p.Actor())
	if errors.Is(dbx.Translate(err), dbx.ErrConflict) {
		return nil, httpx.NewError(http.StatusConflict, "conflict", "a document file named %q exists already", b.Name)
	}
	if err != nil {
		return nil, err
	}
	return platformapi.CreateDocument201JSONResponse(r.response()), nil
}

// ListDocuments lists the organization's documents, most recently updated first.
func (s *Service) ListDocuments(ctx context.Context, req platformapi.ListDocumentsRequestObject) (platformapi.ListDocumentsResponseObject, error) {
	p := auth.MustFromContext(ctx)
	pg := httpx.NewPaging(req.Params.Page, req.Params.Limit)
	var kind, status *string
	if req.Params.DatabaseType != nil {
		k := string(*req.Params.DatabaseType)
		kind = &k
	}
	if req.Params.Status != nil {
		st := string(*req.Params.Status)
		status = &st
	}
	const where = ` FROM documents WHERE organization_id = $1 AND ($2::text IS NULL OR database_type = $2)
		AND ($3::text IS NULL OR status = $3)`
	var total int
	if err := s.d.DB.GetContext(ctx, &total, `SELECT count(*)`+where, p.OrganizationID, kind, status); err != nil {
		return nil, err
	}
	var rows []row
	if err := s.d.DB.SelectContext(ctx, &rows, `SELECT `+columns+where+` ORDER BY updated_at DESC, id LIMIT $4 OFFSET $5`,
		p.OrganizationID, kind, status, pg.Limit, pg.Offset()); err != nil {
		return nil, err
	}
	out := platformapi.ListDocuments200JSONResponse{Documents: make([]platformapi.DocumentFileResponse, len(rows)),
		Total: total, Page: pg.Page, Limit: pg.Limit}
	for i, r := range rows {
		out.Documents[i] = r.response()
	}
	return out, nil
}

// GetDocument returns one document; poll it to follow an import.
func (s *Service) GetDocument(ctx context.Context, req platformapi.GetDocumentRequestObject) (platformapi.GetDocumentResponseObject, error) {
	p := auth.MustFromContext(ctx)
	r, err := get(ctx, s.d.DB, p.OrganizationID, req.DbId, false)
	if err != nil {
		return nil, err
	}
	return platformapi.GetDocument200JSONResponse(r.response()), nil
}

// DeleteDocument removes the document, its revisions and uploads in one transaction (an import still
// running finds the document gone when it ends, and drops what it staged), with the job that deletes its
// stored files; then its table, from the organization's database.
func (s *Service) DeleteDocument(ctx context.Context, req platformapi.DeleteDocumentRequestObject) (platformapi.DeleteDocumentResponseObject, error) {
	p := auth.MustFromContext(ctx)
	if err := writer(p); err != nil {
		return nil, err
	}
	var keys []string
	var after func()
	var table string
	err := dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		r, err := get(ctx, tx, p.OrganizationID, req.DbId, true)
		if err != nil {
			return err
		}
		if err := tx.SelectContext(ctx, &keys, `SELECT file_key FROM document_uploads WHERE document_id = $1`, r.ID); err != nil {
			return err
		}
		if r.DatabaseType == "csv" && r.CurrentTableName != nil {
			table = *r.CurrentTableName
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM documents WHERE id = $1`, r.ID); err != nil {
			return err
		}
		after, err = s.forget(ctx, tx.Tx, keys)
		return err
	})
	if err != nil {
		return nil, err
	}
	after()
	if table != "" {
		s.dropTable(ctx, p.OrganizationID, table)
	}
	return platformapi.DeleteDocument204Response{}, nil
}
