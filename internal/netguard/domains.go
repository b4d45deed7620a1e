package netguard

import (
	"net"
	"strings"
)

// AnyHost is the domain pattern that matches every host.
const AnyHost = "*"

// DomainAllowed reports whether host matches one of patterns, the allowed_domains of a credential:
// "*" matches any host, "*.example.com" any subdomain of example.com (not example.com itself), and
// "example.com" that host alone. Hosts compare case-insensitively, without a port and without a
// trailing dot, so "API.Example.com." and "api.example.com:443" are the same host. An empty list
// matches nothing.
func DomainAllowed(patterns []string, host string) bool {
	host = normalHost(host)
	if host == "" {
		return false
	}
	for _, p := range patterns {
		p = strings.ToLower(strings.TrimSuffix(p, "."))
		switch {
		case p == AnyHost:
			return true
		case strings.HasPrefix(p, "*."):
			if strings.HasSuffix(host, p[1:]) && len(host) > len(p)-1 {
				return true
			}
		case p == host:
			return true
		}
	}
	return false
}

// normalHost strips a port, IPv6 brackets and a trailing dot, and lowers the case.
func normalHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.ToLower(strings.TrimSuffix(host, "."))
}
