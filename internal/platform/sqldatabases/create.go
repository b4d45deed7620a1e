package sqldatabases

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/pgdsn"
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
	password := ""
	if b.Password != nil {
		password = *b.Password
	}
	if _, err := pgdsn.Fields(b.Host, port, b.Database, b.Username, password, ""); err != nil {
		return nil, fieldError(err)
	}
	if b.ConnectionString != nil && *b.ConnectionString != "" {
		cs, err := pgdsn.ParseURL(*b.ConnectionString)
		if err != nil {
			return nil, ConnectionStringError([]any{"body", "connection_string"}, err)
		}
		// The message names the parts that disagree, never the URL: it may hold a password.
		if cs.Host != b.Host || int(cs.Port) != port {
			return nil, httpx.Invalid([]any{"body", "connection_string"}, "value_error",
				"the connection string must name the same host and port as the host and port fields")
		}
	}
	if err := s.checkHost(ctx, b.Host); err != nil {
		return nil, err
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

// fieldOf is the body field of each connection parameter of the form.
var fieldOf = map[string]string{"host": "host", "port": "port", "dbname": "database", "user": "username", "password": "password"}

// fieldError is the 422 of a form field the connection allow-list refuses.
func fieldError(err error) error {
	var pe *pgdsn.Error
	if errors.As(err, &pe) {
		if f, ok := fieldOf[pe.Param]; ok {
			return httpx.Invalid([]any{"body", f}, "value_error", pe.Msg)
		}
	}
	return err
}

// ConnectionStringError is the 422 of a connection string the allow-list refuses: located at the
// connection string and then the parameter, with a message that names the parameter and never the value.
func ConnectionStringError(loc []any, err error) error {
	var pe *pgdsn.Error
	if !errors.As(err, &pe) {
		return err
	}
	if pe.Param != "connection_string" {
		loc = append(loc, pe.Param)
	}
	return httpx.Invalid(loc, "connection_parameter", pe.Msg)
}
