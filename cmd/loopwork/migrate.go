package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/loopwork/loopwork/db/migrations"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/dbx"
)

func migrate(ctx context.Context, cfg config.Config, logger *slog.Logger, args []string, out io.Writer) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: loopwork migrate up|down|status|reset")
	}
	if err := cfg.RequireDatabase(); err != nil {
		return err
	}
	db, err := dbx.Open(ctx, cfg.DatabaseURL, dbx.PoolOptions{MaxOpenConns: 2, MaxIdleConns: 1})
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := migrations.NewProvider(db.DB, logger)
	if err != nil {
		return err
	}
	switch args[0] {
	case "up":
		res, err := p.Up(ctx)
		for _, r := range res {
			fmt.Fprintf(out, "applied %s (%s)\n", r.Source.Path, r.Duration)
		}
		if len(res) == 0 && err == nil {
			fmt.Fprintln(out, "no pending migrations")
		}
		return err
	case "down":
		r, err := p.Down(ctx)
		if r != nil {
			fmt.Fprintf(out, "rolled back %d %s\n", r.Source.Version, r.Source.Path)
		}
		return err
	case "reset":
		res, err := p.DownTo(ctx, 0)
		fmt.Fprintf(out, "rolled back %d migrations\n", len(res))
		return err
	case "status":
		st, err := p.Status(ctx)
		if err != nil {
			return err
		}
		for _, s := range st {
			applied := "pending"
			if !s.AppliedAt.IsZero() {
				applied = s.AppliedAt.Format("2006-01-02 15:04:05")
			}
			path := s.Source.Path
			if path == "" {
				path = "(go) river schema"
			}
			fmt.Fprintf(out, "%5d  %-19s  %s\n", s.Source.Version, applied, path)
		}
		return nil
	}
	return fmt.Errorf("unknown migrate command %q (want up, down, status or reset)", args[0])
}
