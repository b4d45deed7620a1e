package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/loopwork/loopwork/db/migrations"
	"github.com/loopwork/loopwork/internal/buildinfo"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/server"
	"github.com/loopwork/loopwork/internal/tracing"
)

// serve runs until ctx ends (SIGINT/SIGTERM), then drains: readiness turns not_ready, new connections
// are refused, and requests in flight get ShutdownTimeout to finish.
func serve(ctx context.Context, cfg config.Config, logger *slog.Logger) error {
	if err := cfg.RequireDatabase(); err != nil {
		return err
	}
	if err := cfg.RequireSecrets(); err != nil {
		return err
	}
	tr, err := startTracing(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer func() {
		// Spans still buffered go out now; a collector that does not answer delays the exit by 5s at most.
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := tr.Shutdown(sctx); err != nil {
			logger.Warn("flushing traces failed", "error", err.Error())
		}
	}()
	db, err := dbx.Open(ctx, cfg.DatabaseURL, dbx.PoolOptions{
		MaxOpenConns: cfg.DBMaxOpenConns, MaxIdleConns: cfg.DBMaxIdleConns, ConnMaxLifetime: cfg.DBConnMaxLifetime,
		Wrap: tr.Connector,
	})
	if err != nil {
		return err
	}
	defer db.Close()
	readDB := db
	if cfg.ReadDatabaseURL != "" {
		if readDB, err = dbx.Open(ctx, cfg.ReadDatabaseURL, dbx.PoolOptions{
			MaxOpenConns: cfg.DBMaxOpenConns, MaxIdleConns: cfg.DBMaxIdleConns, ConnMaxLifetime: cfg.DBConnMaxLifetime,
			Wrap: tr.Connector,
		}); err != nil {
			return fmt.Errorf("LOOPWORK_READ_DATABASE_URL: %w", err)
		}
		defer readDB.Close()
	}

	if cfg.Migrate {
		p, err := migrations.NewProvider(db.DB, logger)
		if err != nil {
			return err
		}
		res, err := p.Up(ctx)
		if err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		logger.Info("migrations applied", "count", len(res))
	}

	srv, err := server.New(server.Deps{Config: cfg, DB: db, ReadDB: readDB, Logger: logger, Tracing: tr})
	if err != nil {
		return err
	}
	server.TuneRuntime()
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("LOOPWORK_ADDR=%s: %w", cfg.Addr, err)
	}
	logger.Info("listening", "addr", ln.Addr().String(), "version", buildinfo.Version)

	if err := srv.Start(ctx); err != nil {
		return fmt.Errorf("start background workers: %w", err)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	srv.SetDraining()
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := srv.Stop(cfg.ShutdownTimeout); err != nil {
		logger.Warn("background workers stopped with an error", "error", err.Error())
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("stopped")
	return nil
}

// startTracing starts the OTLP exporter when an endpoint is configured (see config.Config.OTLPEndpoint).
func startTracing(ctx context.Context, cfg config.Config, logger *slog.Logger) (*tracing.Tracing, error) {
	tr, err := tracing.New(ctx, tracing.Options{Endpoint: cfg.OTLPTracesURL(), ServiceName: cfg.ServiceName,
		ServiceVersion: buildinfo.Version, SampleRatio: cfg.TraceSampleRatio})
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	if tr.Enabled() {
		tracing.ReportErrorsTo(logger)
		endpoint := cfg.OTLPTracesURL()
		if u, err := url.Parse(endpoint); err == nil {
			endpoint = u.Redacted()
		}
		logger.Info("exporting traces", "endpoint", endpoint, "service", cfg.ServiceName, "sample_ratio", cfg.TraceSampleRatio)
	}
	return tr, nil
}
