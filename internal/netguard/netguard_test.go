package netguard_test

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/loopwork/loopwork/internal/netguard"
)

func TestAllowed(t *testing.T) {
	t.Parallel()
	g := netguard.New(nil)
	for _, ip := range []string{"127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "::1",
		"fe80::1", "fc00::1", "0.0.0.0", "100.64.0.1", "::ffff:127.0.0.1", "224.0.0.1"} {
		if g.Allowed(net.ParseIP(ip)) {
			t.Errorf("%s must be blocked", ip)
		}
	}
	for _, ip := range []string{"8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"} {
		if !g.Allowed(net.ParseIP(ip)) {
			t.Errorf("%s must be allowed", ip)
		}
	}
	// IPv6 addresses that carry a private IPv4 address: IPv4-compatible, IPv4-mapped, IPv4-translated,
	// NAT64 (well-known and local-use prefixes), 6to4 and Teredo.
	for _, ip := range []string{"::127.0.0.1", "::10.0.0.1", "::169.254.169.254", "::ffff:10.0.0.1",
		"::ffff:0:10.0.0.1", "64:ff9b::10.0.0.1", "64:ff9b:1::a00:1", "2002:a00:1::1", "2002:7f00:1::1",
		"2001:0:a00:1::1", "::8.8.8.8"} {
		if g.Allowed(net.ParseIP(ip)) {
			t.Errorf("%s embeds an IPv4 address and must be blocked", ip)
		}
	}
	_, lo, _ := net.ParseCIDR("127.0.0.0/8")
	if !netguard.New([]*net.IPNet{lo}).Allowed(net.ParseIP("127.0.0.1")) {
		t.Error("the allow-list must let 127.0.0.1 through")
	}
}

// TestClientRefusesLoopback dials a real local server: refused by default, served when allow-listed,
// and refused again when a public-looking first hop redirects to it.
func TestClientRefusesLoopback(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) }))
	defer srv.Close()
	_, err := netguard.New(nil).Client(netguard.Options{}).Get(srv.URL)
	if !errors.Is(err, netguard.ErrBlocked) {
		t.Fatalf("loopback target: err = %v, want ErrBlocked", err)
	}
	// The same server named by an IPv4-compatible IPv6 address is refused before any connection.
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	_, err = netguard.New(nil).Client(netguard.Options{}).Get(fmt.Sprintf("http://[::127.0.0.1]:%d/", port))
	if !errors.Is(err, netguard.ErrBlocked) {
		t.Fatalf("[::127.0.0.1] target: err = %v, want ErrBlocked", err)
	}
	_, lo, _ := net.ParseCIDR("127.0.0.0/8")
	res, err := netguard.New([]*net.IPNet{lo}).Client(netguard.Options{}).Get(srv.URL)
	if err != nil {
		t.Fatalf("allow-listed target: %v", err)
	}
	res.Body.Close()
	// A hostname that resolves to loopback is checked after resolution.
	_, err = netguard.New(nil).Client(netguard.Options{}).Get("http://localhost:" + srv.Listener.Addr().(*net.TCPAddr).AddrPort().String()[len("127.0.0.1:"):])
	if !errors.Is(err, netguard.ErrBlocked) {
		t.Fatalf("localhost target: err = %v, want ErrBlocked", err)
	}
}
