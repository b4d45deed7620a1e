package tracing

import (
	"context"
	"database/sql/driver"
	"errors"
	"strings"
	"unicode"

	"github.com/lib/pq"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// Connector wraps the pool's driver connector so that every statement run on behalf of a traced
// operation gets a client span with its text. The statement's parameters are never recorded: they hold
// what callers send (e-mail addresses, token hashes, encrypted secrets, documents), and a trace store is
// not where those may go. A failed statement records its SQLSTATE only, since PostgreSQL's messages
// quote values ("invalid input syntax for type uuid: …").
//
// Statements made outside any span (River polling for jobs, the sweeps' own bookkeeping, the listener
// of access changes) get none: as roots of traces of their own they would bury the requests' traces
// under a trace per poll. With tracing off the connector is returned as it is.
func (t *Tracing) Connector(c driver.Connector) driver.Connector {
	if !t.Enabled() {
		return c
	}
	return &connector{Connector: c, tracer: t.sdk.Tracer(scope)}
}

type connector struct {
	driver.Connector
	tracer trace.Tracer
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	inner, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{Conn: inner, tracer: c.tracer}, nil
}

// statement starts the span of one statement, or returns nil when ctx is not part of a trace.
func statement(ctx context.Context, tracer trace.Tracer, query string) (context.Context, trace.Span) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx, nil
	}
	op := operation(query)
	return tracer.Start(ctx, op, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		semconv.DBSystemNamePostgreSQL, semconv.DBOperationName(op), semconv.DBQueryText(query)))
}

// done ends a statement's span with its outcome.
func done(span trace.Span, err error) {
	if span == nil {
		return
	}
	var pqErr *pq.Error
	switch {
	case err == nil, errors.Is(err, driver.ErrSkip):
	case errors.As(err, &pqErr):
		span.SetAttributes(semconv.DBResponseStatusCode(string(pqErr.Code)))
		span.SetStatus(codes.Error, pqErr.Code.Name())
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.Is(err, driver.ErrBadConn):
		span.SetStatus(codes.Error, err.Error())
	default:
		// Other driver errors may repeat a value they failed to convert; their kind is enough.
		span.SetStatus(codes.Error, "driver error")
	}
	span.End()
}

// operation is the statement's first keyword (SELECT, INSERT, WITH …), past leading comments such as
// dbx.CustomPlan: a span name of few distinct values, as trace stores index span names.
func operation(query string) string {
	q := query
	for {
		q = strings.TrimLeftFunc(q, unicode.IsSpace)
		switch {
		case strings.HasPrefix(q, "/*"):
			end := strings.Index(q, "*/")
			if end < 0 {
				return "postgresql"
			}
			q = q[end+2:]
			continue
		case strings.HasPrefix(q, "--"):
			end := strings.IndexByte(q, '\n')
			if end < 0 {
				return "postgresql"
			}
			q = q[end+1:]
			continue
		}
		break
	}
	end := strings.IndexFunc(q, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(q)
	}
	if end == 0 {
		return "postgresql"
	}
	return strings.ToUpper(q[:end])
}
