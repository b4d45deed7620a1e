package netguard

import (
	"context"
	"net"
	"time"
)

// Dialer adapts the guard to database drivers that take a dialer of their own (lib/pq's Dialer and
// DialerContext), so a tenant's database host is checked on the address actually dialled, like an
// HTTP target.
type Dialer struct{ G *Guard }

// Dial dials with the guard's default timeout.
func (d Dialer) Dial(network, address string) (net.Conn, error) {
	return d.G.DialContext(context.Background(), network, address)
}

// DialTimeout dials within timeout.
func (d Dialer) DialTimeout(network, address string, timeout time.Duration) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return d.G.DialContext(ctx, network, address)
}

// DialContext dials until ctx ends.
func (d Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	return d.G.DialContext(ctx, network, address)
}
