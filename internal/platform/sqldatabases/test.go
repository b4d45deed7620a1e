package sqldatabases

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/netguard"
)

// TestSqlDatabaseConnection connects with the stored settings, runs SELECT 1 within 10 seconds and
// answers how it went; a host the guard refuses is a 400 before any connection.
func (s *Service) TestSqlDatabaseConnection(ctx context.Context, req platformapi.TestSqlDatabaseConnectionRequestObject) (platformapi.TestSqlDatabaseConnectionResponseObject, error) {
	p := auth.MustFromContext(ctx)
	if _, err := s.get(ctx, p.OrganizationID, req.Id); err != nil {
		return nil, err
	}
	ok, retry, err := s.d.Limiter.Allow(ctx, "sql-test:"+p.OrganizationID.String(), TestsPerMinute, time.Minute)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, httpx.TooManyRequests(retry, fmt.Sprintf("more than %d connection tests a minute in this organization", TestsPerMinute))
	}
	sec, err := s.d.Secrets.Open(ctx, p.OrganizationID, req.Id)
	if err != nil {
		return nil, err
	}
	host, _ := sec.Data["host"].(string)
	if err := s.checkHost(ctx, host); err != nil {
		return nil, err
	}
	db, err := Open(s.d.Guard, sec)
	if err != nil {
		return platformapi.TestSqlDatabaseConnection200JSONResponse{Success: false, Message: "the stored settings cannot be used: " + redact(err, sec.Data)}, nil
	}
	defer db.Close()
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	began := time.Now()
	version, err := ping(tctx, db)
	if errors.Is(err, netguard.ErrBlocked) {
		return nil, httpx.BadRequest("ssrf_blocked", "the host resolves to a private, loopback or link-local address the server does not allow")
	}
	if err != nil {
		msg := redact(err, sec.Data)
		if tctx.Err() != nil {
			msg = "no answer within 10 seconds"
		}
		return platformapi.TestSqlDatabaseConnection200JSONResponse{Success: false, Message: msg}, nil
	}
	ms := float32(time.Since(began).Seconds() * 1000)
	return platformapi.TestSqlDatabaseConnection200JSONResponse{Success: true, Message: "Connection succeeded.",
		LatencyMs: &ms, ServerVersion: &version}, nil
}

// redact keeps a driver's message free of the secret's values (password, connection string).
func redact(err error, data map[string]any) string {
	msg := strings.TrimPrefix(err.Error(), "pq: ")
	for _, k := range []string{"password", "connection_string"} {
		if v, ok := data[k].(string); ok && v != "" {
			msg = strings.ReplaceAll(msg, v, "[redacted]")
		}
	}
	return msg
}
