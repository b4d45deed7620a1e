package httpx

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"
	echomw "github.com/oapi-codegen/echo-middleware"
)

func init() {
	// kin-openapi checks only date and date-time out of the box; ids and e-mails must be refused at the
	// door too, so that a malformed id is a 4xx and never reaches SQL.
	openapi3.DefineStringFormatValidator("uuid", openapi3.NewRegexpFormatValidator(
		`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`))
	openapi3.DefineStringFormatValidator("email", openapi3.NewRegexpFormatValidator(
		`^[^@\s]+@[^@\s]+\.[^@\s]+$`))
}

// ValidationStyle says how an interface reports request-validation failures.
type ValidationStyle int

const (
	// Style422 answers 422 HTTPValidationError {detail: [...]} (the /api interface).
	Style422 ValidationStyle = iota
	// Style400 answers 400 ErrorResponse with the items in error.details (the /v1 interface).
	Style400
)

// Authenticator checks one security requirement of an operation; it may store the principal on the
// echo context (echomw.GetEchoContext(ctx)). Errors it returns are sent as they are when they are *Error.
type Authenticator func(ctx context.Context, in *openapi3filter.AuthenticationInput) error

// LoadSpec parses an embedded contract.
func LoadSpec(data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, err
	}
	return doc, doc.Validate(loader.Context)
}

// Validator checks requests of one interface against its contract. It checks authentication first,
// so an anonymous caller learns nothing about the shape of a request it may not make.
type Validator struct {
	routes map[string]*routers.Route // "GET /v1/apps/:app_id" (echo's form of the path)
	style  ValidationStyle
	opts   *openapi3filter.Options
}

// NewValidator indexes the operations of spec by method and echo path, so that a request, which echo
// has already routed, needs no second search through the contract's paths.
func NewValidator(spec *openapi3.T, style ValidationStyle, auth Authenticator) *Validator {
	v := &Validator{routes: map[string]*routers.Route{}, style: style,
		opts: &openapi3filter.Options{MultiError: true, AuthenticationFunc: openapi3filter.AuthenticationFunc(auth)}}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			v.routes[method+" "+echoPath(path)] = &routers.Route{Spec: spec, Path: path, PathItem: item, Method: method, Operation: op}
		}
	}
	return v
}

// OperationID is the contract's operationId of a route in echo's form, or "" for none.
func (v *Validator) OperationID(method, path string) string {
	if r := v.routes[method+" "+path]; r != nil {
		return r.Operation.OperationID
	}
	return ""
}

// For returns the middleware of the operation echo registers at method and path.
func (v *Validator) For(method, path string) echo.MiddlewareFunc {
	route := v.routes[method+" "+path]
	opts := v.opts
	if route != nil && streamed(route.Operation) {
		o := *v.opts
		o.ExcludeRequestBody = true
		opts = &o
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		if route == nil {
			// A route the contract does not describe is a wiring error: refuse rather than serve unchecked.
			return func(echo.Context) error {
				return &Error{Status: http.StatusInternalServerError, Code: "internal_error", Message: "internal server error",
					Internal: errors.New("no contract operation for " + method + " " + path)}
			}
		}
		return func(c echo.Context) error {
			params := make(map[string]string, len(c.ParamNames()))
			for i, name := range c.ParamNames() {
				val := c.ParamValues()[i]
				if u, err := url.PathUnescape(val); err == nil {
					val = u
				}
				params[name] = val
			}
			// The authenticator finds the echo context here, to attach the principal to the request.
			ctx := context.WithValue(c.Request().Context(), echomw.EchoContextKey, c) //nolint:staticcheck
			req := c.Request()
			body := req.Body
			if opts.ExcludeRequestBody {
				// The security check reads the whole body to hand it on (kin-openapi keeps it in memory);
				// what authenticates is in the headers, so it sees no body at all.
				req.Body = http.NoBody
			}
			err := openapi3filter.ValidateRequest(ctx, &openapi3filter.RequestValidationInput{
				Request: req, PathParams: params, Route: route, Options: opts,
			})
			if opts.ExcludeRequestBody {
				// The authenticator may have replaced the request (with the principal on its context).
				req.Body, c.Request().Body = body, body
			}
			if err == nil && opts.ExcludeRequestBody && !isMultipart(req) {
				// The handler reads the parts itself, and would have no form to read: the request is
				// refused here like any other body of the wrong media type.
				err = &openapi3filter.RequestError{Input: &openapi3filter.RequestValidationInput{Request: req},
					RequestBody: route.Operation.RequestBody.Value, Reason: "the body must be multipart/form-data"}
			}
			if e := bodyTooLarge(err); e != nil {
				return e
			}
			if err != nil {
				var me openapi3.MultiError
				if !errors.As(err, &me) {
					me = openapi3.MultiError{err}
				}
				return validationError(me, v.style)
			}
			// Handlers behind the strict interfaces see only the request's context; the few that need
			// the request itself (raw query parameters, Range headers) find the echo context there.
			r := c.Request()
			c.SetRequest(r.WithContext(context.WithValue(r.Context(), echomw.EchoContextKey, c))) //nolint:staticcheck
			return next(c)
		}
	}
}

// streamed tells operations whose body is a multipart form: files of up to 100 MB that the validator
// would read wholly into memory to check them. Their handlers read the parts as they arrive and check
// each one themselves.
func streamed(op *openapi3.Operation) bool {
	return op.RequestBody != nil && op.RequestBody.Value != nil && op.RequestBody.Value.Content.Get("multipart/form-data") != nil
}

// isMultipart says whether a request declares a multipart form body with its boundary.
func isMultipart(r *http.Request) bool {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data" && params["boundary"] != ""
}

// validationError turns the validator's findings into one response. A failed security requirement
// wins over everything else.
func validationError(me openapi3.MultiError, style ValidationStyle) *Error {
	var items []ValidationItem
	var authErr error
	var walk func(err error)
	walk = func(err error) {
		var multi openapi3.MultiError
		var sec *openapi3filter.SecurityRequirementsError
		var req *openapi3filter.RequestError
		// A RequestError unwraps to the MultiError of its findings, so it is matched before MultiError.
		switch {
		case errors.As(err, &sec):
			if authErr == nil {
				authErr = securityError(sec)
			}
		case errors.As(err, &req):
			items = append(items, requestItems(req)...)
		case errors.As(err, &multi):
			for _, e := range multi {
				walk(e)
			}
		default:
			items = append(items, ValidationItem{Loc: []any{"request"}, Msg: err.Error(), Type: "invalid"})
		}
	}
	for _, err := range me {
		walk(err)
	}
	if authErr != nil {
		var e *Error
		if errors.As(authErr, &e) {
			return e
		}
		return &Error{Status: http.StatusUnauthorized, Code: "unauthorized", Message: "missing or invalid credentials", Internal: authErr}
	}
	if style == Style422 {
		return &Error{Status: http.StatusUnprocessableEntity, Code: "validation_failed", Message: summary(items), Validation: items}
	}
	return &Error{Status: http.StatusBadRequest, Code: "validation_failed", Message: summary(items), Details: items}
}

func securityError(sec *openapi3filter.SecurityRequirementsError) error {
	for _, err := range sec.Errors {
		var e *Error
		if errors.As(err, &e) {
			return e
		}
	}
	if len(sec.Errors) > 0 {
		return sec.Errors[0]
	}
	return sec
}

// summary is the one-line message: the first problem, and how many more there are.
func summary(items []ValidationItem) string {
	if len(items) == 0 {
		return "the request is not valid"
	}
	first := items[0]
	parts := make([]string, len(first.Loc))
	for i, l := range first.Loc {
		parts[i] = fmt.Sprint(l)
	}
	msg := fmt.Sprintf("%s: %s", strings.Join(parts, "."), first.Msg)
	if len(items) > 1 {
		msg += fmt.Sprintf(" (and %d more problems)", len(items)-1)
	}
	return msg
}

func requestItems(req *openapi3filter.RequestError) []ValidationItem {
	var base []any
	switch {
	case req.Parameter != nil:
		base = []any{req.Parameter.In, req.Parameter.Name}
	case req.RequestBody != nil:
		base = []any{"body"}
	default:
		base = []any{"request"}
	}
	var out []ValidationItem
	// prefix is the pointer to where err's schema sits, when err comes from re-validating a value
	// against one alternative of its schema (see orNull).
	var add func(err error, prefix []string)
	add = func(err error, prefix []string) {
		var multi openapi3.MultiError
		var se *openapi3.SchemaError
		var pe *openapi3filter.ParseError
		switch {
		case err == nil:
			msg := req.Reason
			if msg == "" {
				msg = "invalid value"
			}
			out = append(out, ValidationItem{Loc: base, Msg: msg, Type: "invalid"})
		case errors.As(err, &multi):
			for _, e := range multi {
				add(e, prefix)
			}
		case errors.Is(err, openapi3filter.ErrInvalidRequired):
			out = append(out, ValidationItem{Loc: base, Msg: "is required", Type: "missing"})
		case errors.As(err, &se):
			pointer := append(append([]string{}, prefix...), se.JSONPointer()...)
			if alt := orNull(se.Schema); alt != nil && se.Value != nil {
				if inner := alt.VisitJSON(se.Value, openapi3.MultiErrors()); inner != nil {
					add(inner, pointer)
					return
				}
			}
			loc := append(append([]any{}, base...), pointerLoc(requestSchema(req), pointer)...)
			out = append(out, ValidationItem{Loc: loc, Msg: schemaErrorMessage(se), Type: schemaErrorType(se), Input: inputOf(se)})
		case errors.As(err, &pe):
			loc := append([]any{}, base...)
			for _, p := range pe.Path() {
				loc = append(loc, p)
			}
			out = append(out, ValidationItem{Loc: loc, Msg: pe.Error(), Type: "parsing", Input: pe.Value})
		default:
			msg := req.Reason
			if msg == "" {
				msg = err.Error()
			} else if !strings.Contains(msg, err.Error()) {
				msg += ": " + err.Error()
			}
			out = append(out, ValidationItem{Loc: base, Msg: msg, Type: "invalid"})
		}
	}
	add(req.Err, nil)
	return out
}

// orNull is X when s is the served documents' "X or null" (nullable, anyOf X and a null-only schema),
// else nil. A value that is not null failed X: X's own error says what is wrong with it, where the
// anyOf's would only say that it matched neither alternative.
func orNull(s *openapi3.Schema) *openapi3.Schema {
	if s == nil || !s.Nullable || len(s.AnyOf) != 2 || s.AnyOf[1].Value == nil {
		return nil
	}
	if e := s.AnyOf[1].Value.Enum; len(e) != 1 || e[0] != nil {
		return nil
	}
	return s.AnyOf[0].Value
}

// inputOf returns the offending value when it is small enough to echo back usefully, and never a value
// of a writeOnly or password field (a secret sent in the wrong shape is not written back into a
// response or a log).
func inputOf(se *openapi3.SchemaError) any {
	if se.Schema != nil && (se.Schema.WriteOnly || se.Schema.Format == "password") {
		return nil
	}
	switch v := se.Value.(type) {
	case map[string]any, []any:
		return nil
	case string:
		if len(v) > 200 {
			return v[:200] + "…"
		}
		return v
	default:
		return v
	}
}

func schemaErrorType(se *openapi3.SchemaError) string {
	switch se.SchemaField {
	case "required":
		return "missing"
	case "maxLength":
		return "string_too_long"
	case "minLength":
		return "string_too_short"
	case "maxItems":
		return "too_long"
	case "minItems":
		return "too_short"
	case "maximum", "exclusiveMaximum":
		return "less_than_equal"
	case "minimum", "exclusiveMinimum":
		return "greater_than_equal"
	case "enum":
		return "enum"
	case "pattern":
		return "string_pattern_mismatch"
	case "format":
		return "format"
	case "type":
		return "type_error"
	case "additionalProperties":
		return "extra_forbidden"
	case "":
		return "invalid"
	}
	return se.SchemaField
}

// formatHints replace kin-openapi's regular-expression dumps with what a caller can act on.
var formatHints = map[string]string{
	"uuid":      "must be a UUID such as 5b0c9b9e-3c1d-4c55-9a52-9c3e2a7f5d11",
	"date-time": "must be an RFC 3339 date-time such as 2026-01-31T15:04:05Z",
	"date":      "must be a date such as 2026-01-31",
	"email":     "must be an e-mail address",
	"uri":       "must be an absolute URI",
}

func schemaErrorMessage(se *openapi3.SchemaError) string {
	if se.SchemaField == "format" && se.Schema != nil {
		if hint, ok := formatHints[se.Schema.Format]; ok {
			return hint
		}
	}
	if se.SchemaField == "pattern" && se.Schema != nil {
		if hint, ok := patternHints[se.Schema.Pattern]; ok {
			return hint
		}
	}
	return se.Reason
}
