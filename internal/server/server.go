// Package server assembles the HTTP stack: middleware, both interfaces with their request validators,
// the authenticator, the background queue, and the services that implement the operations.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/labstack/echo/v4"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/blob"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/engine/jqrun"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/mail"
	"github.com/loopwork/loopwork/internal/memo"
	"github.com/loopwork/loopwork/internal/monitor"
	"github.com/loopwork/loopwork/internal/platform/emailtasks"
	"github.com/loopwork/loopwork/internal/platform/health"
	"github.com/loopwork/loopwork/internal/queue"
	"github.com/loopwork/loopwork/internal/speech"
	"github.com/loopwork/loopwork/internal/tracing"
)

// Deps are what the server needs from the process. Optional fields replace a part for tests.
type Deps struct {
	Config config.Config
	DB     *sqlx.DB
	// ReadDB is a read replica's pool for the /v1 job lists and counts (nil: DB).
	ReadDB *sqlx.DB
	Logger *slog.Logger
	// Authenticator replaces the real one (nil: JWTs and API keys as configured).
	Authenticator httpx.Authenticator
	// MailSender replaces the configured one (nil: SMTP when configured, else the log).
	MailSender mail.Sender
	// OutboundClient replaces the SSRF-guarded client for tenant-controlled URLs.
	OutboundClient *http.Client
	// Blob replaces the configured file storage (nil: local disk under StorageDir).
	Blob blob.Store
	// Tracing records the spans of requests, River jobs and task attempts (nil: none). The pool's
	// statements are traced when DB was opened with its Connector.
	Tracing *tracing.Tracing
	// JQ replaces the pool built from the LOOPWORK_JQ_ settings (a benchmark's in-process evaluator,
	// measured beside the real pool); the server closes it when it stops.
	JQ *jqrun.Pool
}

// Server is the whole application: the HTTP handler and the background workers.
type Server struct {
	// inbound runs the SMTP listener of e-mail tasks when one is configured (inboundAddr).
	inbound     *emailtasks.Service
	inboundAddr string
	listener    *emailtasks.Listener
	engine      *run.Engine
	numbers     *sqlx.DB
	jq          *jqrun.Pool
	echo        *echo.Echo
	health      *health.Service
	queue       *queue.Client
	sweeps      *queue.Sweeps
	tokens      *auth.Tokens
	bus         *memo.Bus
	dsn         string
	logger      *slog.Logger
	// metrics are served on the main listener to backoffice callers, or on metricsAddr when set.
	metrics       *monitor.Metrics
	metricsAddr   string
	metricsServer *metricsListener
}

// New builds the server, area by area in the order their dependencies allow: the shared parts, the
// engine, the services that run River workers, the queue client built from those workers, the
// services that need the client, and the HTTP stack over both interfaces. It fails on a broken
// embedded contract or an unusable configuration.
func New(d Deps) (*Server, error) {
	c, err := newCore(d)
	if err != nil {
		return nil, err
	}
	eng, err := wireEngine(c)
	if err != nil {
		return nil, err
	}
	v1a := wireV1(c, eng)
	pa := wirePlatform(c)
	q, err := wireQueue(c, eng, v1a, pa)
	if err != nil {
		return nil, err
	}
	api, err := pa.api(c, eng)
	if err != nil {
		return nil, err
	}
	e, err := wireHTTP(c, api, v1a.api(c))
	if err != nil {
		return nil, err
	}
	return &Server{inbound: api.emailtasksService, inboundAddr: c.cfg.InboundSMTPAddr, engine: eng.engine, numbers: eng.numbers, jq: eng.jqPool,
		echo: e, health: api.healthService, queue: q, sweeps: c.sweeps, tokens: c.tokens, bus: c.bus, dsn: c.cfg.DatabaseURL,
		logger: d.Logger, metrics: c.metrics, metricsAddr: c.cfg.MetricsAddr}, nil
}

// ServeHTTP makes the server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.echo.ServeHTTP(w, r) }

// Start removes temporary files earlier servers left (speech.SweepTemp), runs the background workers
// until Stop, and listens for the changes that make memoised
// principals and grants stale until ctx ends (without it, nothing is memoised).
func (s *Server) Start(ctx context.Context) error {
	// Recordings of requests a killed server was transcribing are still in the temporary directory.
	n, err := speech.SweepTemp(os.TempDir(), time.Minute)
	if err != nil {
		s.logger.Warn("temporary recordings left by stopped servers could not all be removed", "dir", os.TempDir(), "error", err)
	}
	if n > 0 {
		s.logger.Info("removed temporary recordings left by servers stopped mid-request", "dir", os.TempDir(), "removed", n)
	}
	if err := s.bus.Listen(ctx, s.dsn, s.logger); err != nil {
		return fmt.Errorf("listen for access changes: %w", err)
	}
	if err := s.queue.Start(ctx); err != nil {
		return err
	}
	// River's UI is not started: started, it would count the jobs of every state every ten seconds
	// for as long as the process runs, whether or not anyone looks. Unstarted, it counts them when its
	// page asks, and shows the planner's estimate for a state of more than 10,000 jobs.
	if s.metricsAddr != "" {
		l, err := listenMetrics(s.metricsAddr, s.metrics.Handler(), s.logger)
		if err != nil {
			return err
		}
		s.metricsServer = l
		s.logger.Info("metrics listener", "addr", l.ln.Addr().String())
	}
	s.engine.StartLocal()
	if s.inboundAddr != "" {
		l, err := s.inbound.Listen(s.inboundAddr)
		if err != nil {
			return fmt.Errorf("inbound SMTP listener (LOOPWORK_INBOUND_SMTP_ADDR): %w", err)
		}
		s.listener = l
		s.logger.Info("inbound SMTP listener", "addr", l.Addr())
	}
	return nil
}

// MetricsAddr is where the metrics listener listens, or "" when metrics are served on the main one.
func (s *Server) MetricsAddr() string {
	if s.metricsServer == nil {
		return ""
	}
	return s.metricsServer.ln.Addr().String()
}

// InboundSMTPAddr is where the inbound SMTP listener listens, or "" when it does not run.
func (s *Server) InboundSMTPAddr() string {
	if s.listener == nil {
		return ""
	}
	return s.listener.Addr()
}

// Memo is the bus of the memoised principals and grants (tests wait on it).
func (s *Server) Memo() *memo.Bus { return s.bus }

// Stop lets background work in progress finish for up to grace.
func (s *Server) Stop(grace time.Duration) error {
	begin := time.Now()
	if s.listener != nil {
		_ = s.listener.Close()
	}
	if s.metricsServer != nil {
		s.metricsServer.close()
	}
	s.engine.Drain(grace)
	err := queue.Stop(s.queue, max(grace-time.Since(begin), time.Second))
	s.sweeps.Wait() // leadership ended with the client: the sweeps' statements are cancelled
	s.jq.Close()
	_ = s.numbers.Close()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// SetDraining makes readiness fail while a graceful shutdown lets requests in flight finish.
func (s *Server) SetDraining() { s.health.SetDraining() }

// Engine is the flow engine (tests run its sweeps).
func (s *Server) Engine() *run.Engine { return s.engine }

// Tokens issues access tokens; the test harness signs its callers in with it.
func (s *Server) Tokens() *auth.Tokens { return s.tokens }
