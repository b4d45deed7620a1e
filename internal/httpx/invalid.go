package httpx

import (
	"math"
	"net/http"
	"strconv"
	"time"
)

// Invalid reports input the contract's schema accepts but a rule the schema cannot express refuses
// (a field required by one grant type, a date range that ends before it starts). On /api it is sent
// like the validator's own failures, as 422 HTTPValidationError.
func Invalid(loc []any, typ, msg string) *Error {
	items := []ValidationItem{{Loc: loc, Msg: msg, Type: typ}}
	return &Error{Status: http.StatusUnprocessableEntity, Code: "validation_failed", Message: summary(items), Validation: items}
}

// InvalidItems is Invalid for several problems found at once, sent in the order given.
func InvalidItems(items []ValidationItem) *Error {
	return &Error{Status: http.StatusUnprocessableEntity, Code: "validation_failed", Message: summary(items), Validation: items}
}

// InvalidV1 is Invalid for the /v1 interface: 400 ErrorResponse with the item in error.details.
func InvalidV1(loc []any, typ, msg string) *Error {
	items := []ValidationItem{{Loc: loc, Msg: msg, Type: typ}}
	return &Error{Status: http.StatusBadRequest, Code: "validation_failed", Message: summary(items), Details: items}
}

// TooManyRequests is the 429 of every rate limit: msg says what was limited, Retry-After when to retry.
func TooManyRequests(retry time.Duration, msg string) *Error {
	secs := int(math.Ceil(retry.Seconds()))
	if secs < 1 {
		secs = 1
	}
	return &Error{Status: http.StatusTooManyRequests, Code: "rate_limited",
		Message: msg + "; retry in " + strconv.Itoa(secs) + " seconds",
		Header:  http.Header{"Retry-After": {strconv.Itoa(secs)}}}
}
