package orgs

import (
	"context"
	"fmt"
	"strings"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/httpx"
)

// AdminCreateOrganization creates a tenant; the permission table lets only backoffice call it.
func (s *Service) AdminCreateOrganization(ctx context.Context, req platformapi.AdminCreateOrganizationRequestObject) (platformapi.AdminCreateOrganizationResponseObject, error) {
	p := auth.MustFromContext(ctx)
	name, err := cleanName(req.Body.Name)
	if err != nil {
		return nil, err
	}
	active := req.Body.IsActive == nil || *req.Body.IsActive
	var r Row
	err = s.db.GetContext(ctx, &r, `INSERT INTO organizations (name, is_active, modified_by)
		VALUES ($1, $2, $3) RETURNING `+columns, name, active, p.Actor())
	if err != nil {
		return nil, nameTaken(err, name)
	}
	return platformapi.AdminCreateOrganization201JSONResponse(r.Response()), nil
}

// AdminListOrganizations pages through every organization (backoffice only), sorted by name.
func (s *Service) AdminListOrganizations(ctx context.Context, req platformapi.AdminListOrganizationsRequestObject) (platformapi.AdminListOrganizationsResponseObject, error) {
	page := httpx.NewPaging(req.Params.Page, req.Params.Limit)
	var where []string
	var args []any
	if req.Params.Name != nil {
		// strpos instead of LIKE, so that % and _ in the search text are plain characters.
		args = append(args, *req.Params.Name)
		where = append(where, fmt.Sprintf("strpos(lower(name::text), lower($%d)) > 0", len(args)))
	}
	if req.Params.IsActive != nil {
		args = append(args, *req.Params.IsActive)
		where = append(where, fmt.Sprintf("is_active = $%d", len(args)))
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	out := platformapi.AdminListOrganizations200JSONResponse{Page: page.Page, Limit: page.Limit,
		Organizations: []platformapi.OrganizationResponse{}}
	if err := s.db.GetContext(ctx, &out.Total, `SELECT count(*) FROM organizations`+cond, args...); err != nil {
		return nil, err
	}
	var rows []Row
	args = append(args, page.Limit, page.Offset())
	q := fmt.Sprintf(`SELECT `+columns+` FROM organizations%s ORDER BY name, id LIMIT $%d OFFSET $%d`,
		cond, len(args)-1, len(args))
	if err := s.db.SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out.Organizations = append(out.Organizations, r.Response())
	}
	return out, nil
}

// AdminGetOrganization returns an organization: any to backoffice, only its own to an org_admin.
func (s *Service) AdminGetOrganization(ctx context.Context, req platformapi.AdminGetOrganizationRequestObject) (platformapi.AdminGetOrganizationResponseObject, error) {
	p := auth.MustFromContext(ctx)
	if !p.IsBackoffice() && req.Id != p.OrganizationID {
		return nil, httpx.NotFound("organization")
	}
	r, err := Load(ctx, s.db, req.Id)
	if err != nil {
		return nil, notFound(err)
	}
	return platformapi.AdminGetOrganization200JSONResponse(r.Response()), nil
}
