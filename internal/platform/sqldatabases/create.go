package sqldatabases

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// CreateSqlDatabase registers a database: its host must resolve to addresses the guard allows, and it
// is stored as a sealed sql_database credential. Nothing connects yet.
func (s *Service) CreateSqlDatabase(ctx context.Context, req platformapi.CreateSqlDatabaseRequestObject) (platformapi.CreateSqlDatabaseResponseObject, error) {
	p := auth.MustFromContext(ctx)
	// Every role reaches the operation (auth.Permissions); the contract's narrower rule is kept here.
	if !p.ManagesResources() {
		return nil, httpx.Forbidden("registering SQL databases requires role org_admin, app_user or integration")
	}
	b := req.Body
	port, err := strconv.Atoi(b.Port)
	if err != nil || port < 1 || port > 65535 {
		return nil, httpx.Invalid([]any{"body", "port"}, "value_error", "a port is 1 to 65535")
	}
	if b.ConnectionString != nil && *b.ConnectionString != "" {
		u, err := url.Parse(*b.ConnectionString)
		// The message names the parts that disagree, never the URL: it may hold a password.
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			return nil, httpx.Invalid([]any{"body", "connection_string"}, "value_error", "not a postgres:// URL")
		}
		uport := u.Port()
		if uport == "" {
			uport = "5432"
		}
		if u.Hostname() != b.Host || uport != strconv.Itoa(port) {
			return nil, httpx.Invalid([]any{"body", "connection_string"}, "value_error",
				"the connection string must name the same host and port as the host and port fields")
		}
	}
	if err := s.checkHost(ctx, b.Host); err != nil {
		return nil, err
	}
	password := ""
	if b.Password != nil {
		password = *b.Password
	}
	data := map[string]any{"host": b.Host, "port": port, "database": b.Database, "username": b.Username, "password": password}
	if b.ConnectionString != nil && *b.ConnectionString != "" {
		data["connection_string"] = *b.ConnectionString
	}
	id := uuid.New()
	name := fmt.Sprintf("%s@%s:%d/%s", b.Username, b.Host, port, b.Database)
	err = s.d.Secrets.Insert(ctx, p, id, name, provider, "user_password", data)
	if errors.Is(err, dbx.ErrConflict) {
		return nil, httpx.NewError(http.StatusConflict, "conflict", "this database (%s) is registered already", name)
	}
	if err != nil {
		return nil, err
	}
	r, err := s.get(ctx, p.OrganizationID, id)
	if err != nil {
		return nil, err
	}
	return platformapi.CreateSqlDatabase201JSONResponse(r), nil
}

// checkHost refuses a host that resolves to an address the guard does not allow, or to none.
func (s *Service) checkHost(ctx context.Context, host string) error {
	ips, err := net.DefaultResolver.LookupIP(ctx, "ip", host)
	if err != nil || len(ips) == 0 {
		return httpx.BadRequest("invalid_host", "the host %q does not resolve", host)
	}
	for _, ip := range ips {
		if !s.d.Guard.Allowed(ip) {
			return httpx.BadRequest("ssrf_blocked", "the host resolves to a private, loopback or link-local address the server does not allow")
		}
	}
	return nil
}
