package server_test

import "net/http"

// prismKnownLimitation tells the violations Prism reports about valid responses (its own limits,
// each named here) from those it is right about.
func prismKnownLimitation(_ opKey, _ *http.Response, _ prismViolation) bool {
	return false
}
