package testkit

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Front is a round-robin load balancer in front of several server processes, as a deployment puts one
// before its replicas. A backend that refuses connections is taken out of rotation and the request goes
// to the next one (nothing was sent, so any request may go again); Drain takes one out on purpose and
// waits until it has no request in flight, as a balancer does before a process is replaced.
type Front struct {
	URL      string
	backends []*backend
	next     atomic.Uint64
}

type backend struct {
	url      *url.URL
	out      atomic.Bool  // not in rotation
	inflight atomic.Int64 // requests sent and not yet answered
	served   atomic.Int64 // requests answered
}

// NewFront starts a balancer over the given base URLs and stops it when the test ends.
func NewFront(t testing.TB, urls ...string) *Front {
	t.Helper()
	f := &Front{}
	for _, u := range urls {
		pu, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		f.backends = append(f.backends, &backend{url: pu})
	}
	transport := &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second}
	proxy := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.Out.Host = r.In.Host },
		Transport:     &frontTransport{f: f, base: transport},
		FlushInterval: -1, // streams (SSE) pass through as they are written
	}
	ts := httptest.NewServer(proxy)
	t.Cleanup(ts.Close)
	f.URL = ts.URL
	return f
}

// frontTransport picks the backend for each attempt: the request's URL is rewritten here so that a
// refused connection can be tried again on the next backend.
type frontTransport struct {
	f    *Front
	base http.RoundTripper
}

func (ft *frontTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var last error
	for range ft.f.backends {
		b := ft.f.pick()
		if b == nil {
			break
		}
		out := req.Clone(req.Context())
		out.URL.Scheme, out.URL.Host = b.url.Scheme, b.url.Host
		res, err := ft.base.RoundTrip(out)
		if err == nil {
			res.Body = &countedBody{ReadCloser: res.Body, b: b}
			return res, nil
		}
		b.inflight.Add(-1)
		var op *net.OpError
		if !errors.As(err, &op) || op.Op != "dial" {
			return nil, err // the request may have reached the backend: not ours to repeat
		}
		b.out.Store(true)
		last = err
	}
	if last == nil {
		last = errors.New("no backend in rotation")
	}
	return nil, last
}

// pick is the next backend in rotation with the request counted in flight there, or nil when none is
// in rotation. Counting before looking at the flag means Drain, which sets the flag before it looks at
// the count, never misses a request on its way.
func (f *Front) pick() *backend {
	for range f.backends {
		b := f.backends[f.next.Add(1)%uint64(len(f.backends))]
		b.inflight.Add(1)
		if !b.out.Load() {
			return b
		}
		b.inflight.Add(-1)
	}
	return nil
}

// Drain takes backend i out of rotation and waits until its requests in flight have been answered.
func (f *Front) Drain(t testing.TB, i int) {
	t.Helper()
	b := f.backends[i]
	b.out.Store(true)
	deadline := time.Now().Add(30 * time.Second)
	for b.inflight.Load() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("backend %d still has %d requests in flight", i, b.inflight.Load())
		}
		time.Sleep(time.Millisecond)
	}
}

// Served is how many requests each backend answered.
func (f *Front) Served() []int64 {
	out := make([]int64, len(f.backends))
	for i, b := range f.backends {
		out[i] = b.served.Load()
	}
	return out
}

// countedBody ends a request's time in flight when its answer has been read and closed.
type countedBody struct {
	io.ReadCloser
	b    *backend
	once sync.Once
}

func (c *countedBody) Close() error {
	err := c.ReadCloser.Close()
	c.once.Do(func() { c.b.inflight.Add(-1); c.b.served.Add(1) })
	return err
}
