package tags

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/oapi-codegen/nullable"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/paging"
)

// tagColumns selects a tag of `app_tags t` with the number of the app's jobs carrying it, which the
// GIN index on jobs.tags answers without reading the app's other jobs.
const tagColumns = `t.app_id, t.tag, t.description, t.color, t.created_at, t.updated_at,
	(SELECT count(*) FROM jobs j WHERE j.app_id = t.app_id AND j.tags @> ARRAY[t.tag]) AS job_count`

type tagRow struct {
	AppID       uuid.UUID `db:"app_id"`
	Tag         string    `db:"tag"`
	Description *string   `db:"description"`
	Color       *string   `db:"color"`
	CreatedAt   time.Time `db:"created_at"`
	UpdatedAt   time.Time `db:"updated_at"`
	JobCount    int64     `db:"job_count"`
}

func (r tagRow) response() v1api.AppTag {
	return v1api.AppTag{AppId: r.AppID, Tag: r.Tag, Description: r.Description, Color: r.Color,
		JobCount: r.JobCount, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

func (s *Service) load(ctx context.Context, db dbx.DBTX, app uuid.UUID, tag string) (v1api.AppTag, error) {
	var r tagRow
	err := db.GetContext(ctx, &r, `SELECT `+tagColumns+` FROM app_tags t WHERE t.app_id = $1 AND t.tag = $2`, app, tag)
	if errors.Is(err, sql.ErrNoRows) {
		return v1api.AppTag{}, httpx.NotFound("tag")
	}
	return r.response(), err
}

// ListAppTags lists the app's tags by tag text, optionally those containing a text in any case.
func (s *Service) ListAppTags(ctx context.Context, req v1api.ListAppTagsRequestObject) (v1api.ListAppTagsResponseObject, error) {
	g, _, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler)
	if err != nil {
		return nil, err
	}
	// Tags are case-sensitive text: they sort by code point, the same whatever the database's collation.
	pg := paging.New(req.Params.Page, req.Params.Size, nil, nil, paging.Columns{"id": `t.tag COLLATE "C"`})
	where, args := `t.app_id = $1`, []any{g.App.ID}
	if req.Params.TagContains != nil {
		// strpos on lowered text is a substring test in which % and _ are ordinary characters.
		where += ` AND strpos(lower(t.tag), lower($2)) > 0`
		args = append(args, *req.Params.TagContains)
	}
	out := v1api.ListAppTags200JSONResponse{Items: []v1api.AppTag{}, Page: pg.Page, Size: pg.Size}
	rows, total, err := paging.List[tagRow](ctx, s.d.DB, pg, tagColumns, "app_tags t", where, args)
	if err != nil {
		return nil, err
	}
	out.Total = total
	for _, r := range rows {
		out.Items = append(out.Items, r.response())
	}
	return out, nil
}

// CreateAppTag defines the tag on the app; a tag already defined is answered unchanged.
func (s *Service) CreateAppTag(ctx context.Context, req v1api.CreateAppTagRequestObject) (v1api.CreateAppTagResponseObject, error) {
	g, _, err := s.d.Grants.Require(ctx, req.AppId, access.Manager)
	if err != nil {
		return nil, err
	}
	if _, err := s.d.DB.ExecContext(ctx, `INSERT INTO app_tags (app_id, tag, organization_id) VALUES ($1, $2, $3)
		ON CONFLICT (app_id, tag) DO NOTHING`, g.App.ID, req.Tag, g.App.OrganizationID); err != nil {
		return nil, err
	}
	t, err := s.load(ctx, s.d.DB, g.App.ID, req.Tag)
	if err != nil {
		return nil, err
	}
	return v1api.CreateAppTag200JSONResponse(t), nil
}

// GetAppTag answers a defined tag of the app.
func (s *Service) GetAppTag(ctx context.Context, req v1api.GetAppTagRequestObject) (v1api.GetAppTagResponseObject, error) {
	g, _, err := s.d.Grants.Require(ctx, req.AppId, access.Labeler)
	if err != nil {
		return nil, err
	}
	t, err := s.load(ctx, s.d.DB, g.App.ID, req.Tag)
	if err != nil {
		return nil, err
	}
	return v1api.GetAppTag200JSONResponse(t), nil
}

// UpdateAppTag changes the fields present in the body; a field sent as null is cleared.
func (s *Service) UpdateAppTag(ctx context.Context, req v1api.UpdateAppTagRequestObject) (v1api.UpdateAppTagResponseObject, error) {
	g, _, err := s.d.Grants.Require(ctx, req.AppId, access.Manager)
	if err != nil {
		return nil, err
	}
	desc, setDesc := change(req.Body.Description)
	color, setColor := change(req.Body.Color)
	res, err := s.d.DB.ExecContext(ctx, `UPDATE app_tags SET
		description = CASE WHEN $3 THEN $4 ELSE description END,
		color = CASE WHEN $5 THEN $6 ELSE color END,
		updated_at = now()
		WHERE app_id = $1 AND tag = $2`, g.App.ID, req.Tag, setDesc, desc, setColor, color)
	if err != nil {
		return nil, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, httpx.NotFound("tag")
	}
	t, err := s.load(ctx, s.d.DB, g.App.ID, req.Tag)
	if err != nil {
		return nil, err
	}
	return v1api.UpdateAppTag200JSONResponse(t), nil
}

// change reads a nullable field of a PATCH body: whether it was sent, and its new value (nil clears).
func change(v nullable.Nullable[string]) (*string, bool) {
	if !v.IsSpecified() || v.IsNull() {
		return nil, v.IsSpecified()
	}
	s := v.MustGet()
	return &s, true
}

// DeleteAppTag removes the tag's definition and takes the tag off every job of the app, at once.
func (s *Service) DeleteAppTag(ctx context.Context, req v1api.DeleteAppTagRequestObject) (v1api.DeleteAppTagResponseObject, error) {
	g, _, err := s.d.Grants.Require(ctx, req.AppId, access.Manager)
	if err != nil {
		return nil, err
	}
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM app_tags WHERE app_id = $1 AND tag = $2`, g.App.ID, req.Tag); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE jobs SET tags = array_remove(tags, $2), updated_at = now()
			WHERE app_id = $1 AND tags @> ARRAY[$2]`, g.App.ID, req.Tag)
		return err
	})
	if err != nil {
		return nil, err
	}
	return v1api.DeleteAppTag204Response{}, nil
}
