package sso

import (
	"fmt"
	"strings"

	"github.com/loopwork/loopwork/internal/httpx"
)

// normalizeDomains lower-cases the domains, drops a trailing dot, and refuses what is not a host name
// and what repeats (the contract's uniqueItems is case-sensitive; domains are not).
func normalizeDomains(in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	seen := make(map[string]int, len(in))
	for i, raw := range in {
		d := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(raw)), ".")
		loc := []any{"body", "domains", i}
		if !isDomain(d) {
			return nil, httpx.Invalid(loc, "value_error", fmt.Sprintf("%q is not an e-mail domain such as example.com", raw))
		}
		if j, dup := seen[d]; dup {
			return nil, httpx.Invalid(loc, "value_error", fmt.Sprintf("%q repeats domains[%d]", raw, j))
		}
		seen[d] = i
		out = append(out, d)
	}
	return out, nil
}

// isDomain accepts lower-case host names of at least two labels (letters, digits, inner hyphens, at
// most 63 characters each, 253 in all) whose top-level label is not numeric, so IP addresses are not
// mistaken for domains.
func isDomain(d string) bool {
	if len(d) < 3 || len(d) > 253 {
		return false
	}
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return strings.Trim(labels[len(labels)-1], "0123456789") != ""
}

// mappingKeys are the user fields an attribute mapping may name.
var mappingKeys = map[string]bool{"email": true, "first_name": true, "last_name": true, "role": true}

// checkMapping checks an attribute mapping: known user fields to non-empty attribute names. An empty
// mapping means the standard attribute names, the same as none, so it is stored as none.
func checkMapping(m *map[string]any) (*map[string]any, error) {
	if m == nil || len(*m) == 0 {
		return nil, nil
	}
	for k, v := range *m {
		loc := []any{"body", "attribute_mapping", k}
		if !mappingKeys[k] {
			return nil, httpx.Invalid(loc, "value_error", "attribute_mapping keys are email, first_name, last_name and role")
		}
		s, ok := v.(string)
		if !ok || strings.TrimSpace(s) == "" || len(s) > 1024 {
			return nil, httpx.Invalid(loc, "value_error", "an attribute_mapping value is the name of a SAML attribute (a non-empty string)")
		}
	}
	return m, nil
}

// oneSource enforces "exactly one of metadata_url and metadata_xml" (required says whether none is
// acceptable, as it is on PATCH).
func oneSource(url, xml *string, required bool) error {
	switch {
	case url != nil && xml != nil:
		return httpx.Invalid([]any{"body"}, "value_error", "give metadata_url or metadata_xml, not both")
	case required && url == nil && xml == nil:
		return httpx.Invalid([]any{"body"}, "value_error", "give one of metadata_url and metadata_xml")
	}
	return nil
}
