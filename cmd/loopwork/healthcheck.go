package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/loopwork/loopwork/internal/config"
)

// healthcheck asks the server listening on LOOPWORK_ADDR whether it is ready, for a container runtime's
// HEALTHCHECK: the image holds the binary and nothing to run an HTTP request with (no shell, no curl),
// so the binary asks itself. It succeeds only on a 200 from /health/readiness, which checks the database
// and the migrations, so a replica whose database is gone is reported unhealthy rather than merely alive.
func healthcheck(ctx context.Context, cfg config.Config, stdout io.Writer) error {
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return fmt.Errorf("LOOPWORK_ADDR=%q: %w", cfg.Addr, err)
	}
	// A server listening on every interface (0.0.0.0, [::] or an empty host) is reached over loopback.
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	url := "http://" + net.JoinHostPort(host, port) + "/health/readiness"
	ctx, cancel := context.WithTimeout(ctx, cfg.ReadinessTimeout+time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %d: %s", url, res.StatusCode, body)
	}
	fmt.Fprintf(stdout, "ready: %s\n", url)
	return nil
}
