package server

import (
	"log/slog"
	"net"
	"strings"

	"github.com/loopwork/loopwork/internal/config"
)

// publicURL is the base of every absolute link the server hands out: invitation and recovery links in
// e-mails, download links, the root document's base URL. It comes from configuration only, never from
// a request: a Host or X-Forwarded-Host header is the sender's to choose, and a link built from it would
// carry a one-time token to the sender's host. Without LOOPWORK_PUBLIC_URL the links point at the
// listen address, and the server says so when it starts.
func publicURL(cfg config.Config, logger *slog.Logger) string {
	if cfg.PublicURL != "" {
		return strings.TrimRight(cfg.PublicURL, "/")
	}
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		host, port = cfg.Addr, ""
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	base := "http://" + host
	if port != "" {
		base = "http://" + net.JoinHostPort(host, port)
	}
	if logger != nil {
		logger.Warn("LOOPWORK_PUBLIC_URL is not set: links the server sends (invitations, password resets, "+
			"downloads) are built from the listen address, never from a request; set LOOPWORK_PUBLIC_URL to the "+
			"address users reach", "public_url", base)
	}
	return base
}
