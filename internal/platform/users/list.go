package users

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/httpx"
)

// filter is what a user list keeps; nil fields keep everything.
type filter struct {
	org    *uuid.UUID
	role   *platformapi.UserRole
	active *bool
	email  *string
}

// AdminListUsers lists the users of the caller's organization, or of every organization to backoffice.
func (s *Service) AdminListUsers(ctx context.Context, req platformapi.AdminListUsersRequestObject) (platformapi.AdminListUsersResponseObject, error) {
	p := auth.MustFromContext(ctx)
	prm := req.Params
	f := filter{org: scope(p), role: prm.Role, active: prm.IsActive, email: prm.Email}
	page := httpx.NewPaging(prm.Page, prm.Limit)
	if prm.OrganizationId != nil {
		if f.org != nil && *f.org != *prm.OrganizationId {
			// An org_admin asking for another organization sees nothing, as if it had no users.
			return platformapi.AdminListUsers200JSONResponse(emptyPage(page)), nil
		}
		f.org = prm.OrganizationId
	}
	out, err := s.list(ctx, f, page)
	if err != nil {
		return nil, err
	}
	return platformapi.AdminListUsers200JSONResponse(out), nil
}

// AdminListOrganizationUsers lists the users of the organization of the path.
func (s *Service) AdminListOrganizationUsers(ctx context.Context, req platformapi.AdminListOrganizationUsersRequestObject) (platformapi.AdminListOrganizationUsersResponseObject, error) {
	p := auth.MustFromContext(ctx)
	if !p.IsBackoffice() && req.Id != p.OrganizationID {
		return nil, httpx.NotFound("organization")
	}
	var exists bool
	if err := s.d.DB.GetContext(ctx, &exists, `SELECT EXISTS (SELECT 1 FROM organizations WHERE id = $1)`, req.Id); err != nil {
		return nil, err
	}
	if !exists {
		return nil, httpx.NotFound("organization")
	}
	prm := req.Params
	org := req.Id
	out, err := s.list(ctx, filter{org: &org, role: prm.Role, active: prm.IsActive, email: prm.Email},
		httpx.NewPaging(prm.Page, prm.Limit))
	if err != nil {
		return nil, err
	}
	return platformapi.AdminListOrganizationUsers200JSONResponse(out), nil
}

func emptyPage(page httpx.Paging) platformapi.UserListResponse {
	return platformapi.UserListResponse{Users: []platformapi.UserResponse{}, Page: page.Page, Limit: page.Limit}
}

// list returns one page of users sorted by e-mail, with the number of matches over all pages.
func (s *Service) list(ctx context.Context, f filter, page httpx.Paging) (platformapi.UserListResponse, error) {
	var where []string
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if f.org != nil {
		add("u.organization_id = $%d", *f.org)
	}
	if f.role != nil {
		add("u.role = $%d", string(*f.role))
	}
	if f.active != nil {
		add("u.is_active = $%d", *f.active)
	}
	if f.email != nil {
		// strpos instead of LIKE, so that % and _ in the search text are plain characters.
		add("strpos(lower(u.email::text), lower($%d)) > 0", *f.email)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	out := emptyPage(page)
	if err := s.d.DB.GetContext(ctx, &out.Total, `SELECT count(*) FROM users u`+cond, args...); err != nil {
		return out, err
	}
	var rows []UserRow
	args = append(args, page.Limit, page.Offset())
	q := fmt.Sprintf(`SELECT `+SelectColumns+` FROM users u%s ORDER BY u.email, u.id LIMIT $%d OFFSET $%d`,
		cond, len(args)-1, len(args))
	if err := s.d.DB.SelectContext(ctx, &rows, q, args...); err != nil {
		return out, err
	}
	for _, r := range rows {
		out.Users = append(out.Users, ToResponse(r))
	}
	return out, nil
}
