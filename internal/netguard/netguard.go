// Package netguard builds the HTTP client for calls whose target a tenant controls (SSO metadata URLs,
// HTTP tasks, SQL hosts, webhooks). It refuses private, loopback, link-local and other non-public
// addresses unless an allow-list names them, and it checks the address actually dialled, after DNS
// resolution and on every redirect, so a hostname that resolves to 127.0.0.1 does not get through.
package netguard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrBlocked is returned (wrapped) when a target address is not allowed.
var ErrBlocked = errors.New("target address is not allowed")

// Guard decides which addresses may be dialled.
type Guard struct {
	allow []*net.IPNet
}

// New returns a guard that also allows the given networks.
func New(allow []*net.IPNet) *Guard { return &Guard{allow: allow} }

// Allowed reports whether ip may be dialled.
func (g *Guard) Allowed(ip net.IP) bool {
	for _, n := range g.allow {
		if n.Contains(ip) {
			return true
		}
	}
	addr, ok := netip.AddrFromSlice(ip)
	if !ok {
		return false
	}
	addr = addr.Unmap()
	switch {
	case addr.IsLoopback(), addr.IsPrivate(), addr.IsLinkLocalUnicast(), addr.IsLinkLocalMulticast(),
		addr.IsMulticast(), addr.IsUnspecified(), addr.IsInterfaceLocalMulticast():
		return false
	}
	for _, p := range reserved {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}

// reserved are further ranges no public service lives in (carrier-grade NAT, benchmarking,
// documentation, 0/8, broadcast), and the IPv6 forms that carry an IPv4 address inside them. An
// IPv4-mapped address (::ffff:a.b.c.d) is judged as the IPv4 address it maps (Unmap, above); the other
// embeddings are refused whole, whatever IPv4 address they carry, because a host or gateway that
// translates them (NAT64 on the server's network, a 6to4 or Teredo relay, a stack that still routes
// IPv4-compatible addresses) reaches that IPv4 address, private ones included.
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated): ::a.b.c.d
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (SIIT): ::ffff:0:a.b.c.d
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64 well-known prefix
	netip.MustParsePrefix("64:ff9b:1::/48"),  // NAT64 local-use prefix
	netip.MustParsePrefix("2002::/16"),       // 6to4: 2002:AABB:CCDD::/48 carries a.b.c.d
	netip.MustParsePrefix("2001::/32"),       // Teredo: carries the server's and the client's IPv4
}

// control runs after DNS resolution, on the exact address about to be connected.
func (g *Guard) control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	if ip == nil || !g.Allowed(ip) {
		return fmt.Errorf("%w: %s", ErrBlocked, host)
	}
	return nil
}

// DialContext dials like net.Dialer but refuses blocked addresses.
func (g *Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 5 * time.Second, Control: g.control}
	return d.DialContext(ctx, network, address)
}

// Options tune the client.
type Options struct {
	// Timeout bounds a whole request (default 10s).
	Timeout time.Duration
	// RootCAs, when set, replaces the system roots (tests use their own CA).
	RootCAs *x509.CertPool
}

// Client returns an HTTP client whose every connection, redirects included, passes the guard.
func (g *Guard) Client(o Options) *http.Client {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	tr := &http.Transport{
		DialContext:           g.DialContext,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: o.Timeout,
		MaxIdleConns:          10,
		IdleConnTimeout:       30 * time.Second,
		Proxy:                 nil, // a proxy would dial on the tenant's behalf and bypass the guard
		TLSClientConfig:       &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12},
	}
	return &http.Client{
		Transport: tr,
		Timeout:   o.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			return nil
		},
	}
}
