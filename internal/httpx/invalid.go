package httpx

import "net/http"

// Invalid reports input the contract's schema accepts but a rule the schema cannot express refuses
// (a field required by one grant type, a date range that ends before it starts). On /api it is sent
// like the validator's own failures, as 422 HTTPValidationError.
func Invalid(loc []any, typ, msg string) *Error {
	items := []ValidationItem{{Loc: loc, Msg: msg, Type: typ}}
	return &Error{Status: http.StatusUnprocessableEntity, Code: "validation_failed", Message: summary(items), Validation: items}
}

// InvalidV1 is Invalid for the /v1 interface: 400 ErrorResponse with the item in error.details.
func InvalidV1(loc []any, typ, msg string) *Error {
	items := []ValidationItem{{Loc: loc, Msg: msg, Type: typ}}
	return &Error{Status: http.StatusBadRequest, Code: "validation_failed", Message: summary(items), Details: items}
}
