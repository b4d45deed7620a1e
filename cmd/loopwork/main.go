// Command loopwork is the loopwork server and its administration tool.
//
//	loopwork serve                  run the HTTP server (migrates first unless LOOPWORK_MIGRATE=false)
//	loopwork migrate up|down|status|reset
//	loopwork admin create-user|mail-outbox
//	loopwork config                 print the effective configuration
//	loopwork healthcheck            exit 0 when the server on LOOPWORK_ADDR is ready (container HEALTHCHECK)
//	loopwork version
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/loopwork/loopwork/internal/buildinfo"
	"github.com/loopwork/loopwork/internal/config"
)

const usage = `usage: loopwork <command>

commands:
  serve                         run the HTTP server (runs pending migrations first unless LOOPWORK_MIGRATE=false)
  migrate up|down|status|reset  apply all, roll back one, list, or roll back all migrations
  admin create-user|mail-outbox bootstrap accounts, read the mail outbox (loopwork admin for details)
  config                        print the effective configuration
  healthcheck                   exit 0 when the server on LOOPWORK_ADDR answers ready (for container runtimes)
  version                       print the version
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "loopwork:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return fmt.Errorf("no command given")
	}
	if args[0] == "version" {
		fmt.Fprintln(stdout, "loopwork", buildinfo.Version)
		return nil
	}
	cfg, err := config.FromEnv(getenv)
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	logger := newLogger(cfg, os.Stderr)
	switch args[0] {
	case "serve":
		return serve(ctx, cfg, logger)
	case "migrate":
		return migrate(ctx, cfg, logger, args[1:], stdout)
	case "admin":
		return admin(ctx, cfg, args[1:], stdout)
	case "config":
		return printConfig(cfg, stdout)
	case "healthcheck":
		return healthcheck(ctx, cfg, stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stdout, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

func printConfig(cfg config.Config, w io.Writer) error {
	for _, s := range config.Settings() {
		v := cfg.Lookup(s.Env)
		fmt.Fprintf(w, "%s=%s\n", s.Env, v)
	}
	return nil
}
