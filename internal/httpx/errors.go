// Package httpx is the HTTP plumbing shared by both interfaces: the echo server, request ids, access
// log, request validation against the contracts, the documentation pages, and the one place where
// errors become responses.
package httpx

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/loopwork/loopwork/internal/dbx"
)

// Error is an expected failure with the status, machine-readable code and public message to send.
// Internal, when set, is logged and never sent.
type Error struct {
	Status   int
	Code     string
	Message  string
	Details  any
	Internal error
	// Validation, when set, is sent as an HTTPValidationError body ({detail: [...]}) instead of ErrorResponse.
	Validation []ValidationItem
	// Header holds extra response headers, such as Retry-After.
	Header http.Header
}

func (e *Error) Error() string {
	if e.Internal != nil {
		return fmt.Sprintf("%d %s: %s: %v", e.Status, e.Code, e.Message, e.Internal)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Internal }

// ValidationItem is one entry of HTTPValidationError.detail (and of /v1 error details).
type ValidationItem struct {
	Loc   []any  `json:"loc"`
	Msg   string `json:"msg"`
	Type  string `json:"type"`
	Input any    `json:"input,omitempty"`
}

// NewError builds an Error with a formatted public message.
func NewError(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// NotFound is the single answer for "missing" and "belongs to another organization".
func NotFound(what string) *Error {
	return &Error{Status: http.StatusNotFound, Code: "not_found", Message: what + " not found"}
}

// BadRequest reports input the contract accepts but the service cannot act on.
func BadRequest(code, format string, args ...any) *Error {
	return NewError(http.StatusBadRequest, code, format, args...)
}

// Conflict reports a clash with existing state.
func Conflict(format string, args ...any) *Error {
	return NewError(http.StatusConflict, "conflict", format, args...)
}

// Forbidden reports a role that lacks the permission.
func Forbidden(format string, args ...any) *Error {
	return NewError(http.StatusForbidden, "forbidden", format, args...)
}

// Unauthorized reports missing or unusable credentials.
func Unauthorized(format string, args ...any) *Error {
	return NewError(http.StatusUnauthorized, "unauthorized", format, args...)
}

type errorBody struct {
	Error     errorDetail `json:"error"`
	RequestID *string     `json:"request_id"`
}

// errorDetail leaves details out when there are none: the served Swagger 2.0 document of /v1 cannot
// say that a value may be null (x-nullable is not set on it), so `"details": null` broke the contract
// there, while an absent optional member is valid under both documents.
type errorDetail struct {
	Message string  `json:"message"`
	Code    *string `json:"code"`
	Details any     `json:"details,omitempty"`
}

type validationBody struct {
	Detail    []ValidationItem `json:"detail"`
	RequestID *string          `json:"request_id"`
}

// notImplemented is satisfied by the generated NotImplementedError of either interface.
type notImplemented interface{ NotImplementedOperation() string }

// ErrorHandler is echo's HTTPErrorHandler: every error of every route becomes a response here, once.
func ErrorHandler(logger *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			logger.WarnContext(c.Request().Context(), "error after response started",
				"request_id", RequestID(c), "error", err.Error())
			return
		}
		e := classify(err)
		// A 501 (an operation with nothing behind it on this server) is no failure of the server: the access log reports it once,
		// as a warning that names the operation (see AccessLog).
		var ni notImplemented
		if e.Status >= 500 && !errors.As(err, &ni) {
			logger.ErrorContext(c.Request().Context(), "request failed", "request_id", RequestID(c),
				"method", c.Request().Method, "path", LoggedPath(c), "status", e.Status, "error", err.Error())
		}
		for k, vs := range e.Header {
			for _, v := range vs {
				c.Response().Header().Add(k, v)
			}
		}
		id := RequestID(c)
		var rid *string
		if id != "" {
			rid = &id
		}
		var werr error
		switch {
		case c.Request().Method == http.MethodHead:
			werr = c.NoContent(e.Status)
		case e.Validation != nil:
			werr = c.JSON(e.Status, validationBody{Detail: e.Validation, RequestID: rid})
		default:
			code := e.Code
			werr = c.JSON(e.Status, errorBody{Error: errorDetail{Message: e.Message, Code: &code, Details: e.Details}, RequestID: rid})
		}
		if werr != nil {
			logger.WarnContext(c.Request().Context(), "writing error response", "request_id", id, "error", werr.Error())
		}
	}
}

// classify maps any error to the Error to send. Unknown errors become an opaque 500.
func classify(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var ni notImplemented
	if errors.As(err, &ni) {
		return &Error{Status: http.StatusNotImplemented, Code: "not_implemented",
			Message: "operation " + ni.NotImplementedOperation() + " is not available on this server yet"}
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return fromEchoError(he)
	}
	var ce *dbx.ConstraintError
	switch {
	case errors.Is(err, dbx.ErrNotFound):
		return NotFound("resource")
	case errors.As(err, &ce) && errors.Is(err, dbx.ErrConflict):
		return &Error{Status: http.StatusConflict, Code: "conflict", Message: "conflicts with an existing resource",
			Details: map[string]any{"constraint": ce.Constraint}, Internal: err}
	case errors.Is(err, dbx.ErrReferenced):
		return &Error{Status: http.StatusConflict, Code: "conflict", Message: "refers to, or is referred to by, another resource", Internal: err}
	case errors.Is(err, dbx.ErrInvalid):
		return &Error{Status: http.StatusBadRequest, Code: "invalid_value", Message: "a value is out of range or malformed", Internal: err}
	case errors.Is(err, context.Canceled):
		// The client went away; 499 is never seen by it but keeps logs and metrics honest.
		return &Error{Status: 499, Code: "client_closed_request", Message: "the request was canceled", Internal: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Status: http.StatusServiceUnavailable, Code: "timeout", Message: "the request took too long", Internal: err}
	}
	return &Error{Status: http.StatusInternalServerError, Code: "internal_error", Message: "internal server error", Internal: err}
}

func fromEchoError(he *echo.HTTPError) *Error {
	msg := http.StatusText(he.Code)
	if s, ok := he.Message.(string); ok && s != "" {
		msg = s
	}
	code := "error"
	switch he.Code {
	case http.StatusNotFound:
		code, msg = "not_found", "no route matches this path"
	case http.StatusMethodNotAllowed:
		code, msg = "method_not_allowed", "this path does not accept the method"
	case http.StatusRequestEntityTooLarge:
		code, msg = "request_too_large", "the request body is larger than this route accepts"
	case http.StatusUnsupportedMediaType:
		code = "unsupported_media_type"
	case http.StatusBadRequest:
		code = "bad_request"
	case http.StatusUnauthorized:
		code = "unauthorized"
	case http.StatusForbidden:
		code = "forbidden"
	case http.StatusTooManyRequests:
		code = "rate_limited"
	case http.StatusServiceUnavailable:
		code = "unavailable"
	}
	if he.Code >= 500 {
		return &Error{Status: he.Code, Code: "internal_error", Message: "internal server error", Internal: he}
	}
	return &Error{Status: he.Code, Code: code, Message: msg, Internal: he.Internal}
}
