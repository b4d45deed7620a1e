package httpx

// patternHints replace kin-openapi's "doesn't match the regular expression" for the patterns the
// contracts use for rules a caller knows by name.
var patternHints = map[string]string{
	`\S`:                 "must not be blank (only white space)",
	`^[^,]*[^,\s][^,]*$`: "must not be blank (only white space) and must not contain a comma",
}
