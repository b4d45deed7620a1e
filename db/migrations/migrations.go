// Package migrations holds loopwork's schema: goose SQL files embedded in the binary, plus River's
// own schema as goose migration 1.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivermigrate"
)

//go:embed *.sql
var sqlFiles embed.FS

// Files are the embedded SQL migrations.
func Files() fs.FS { return sqlFiles }

// RiverVersion is the goose version that installs River's tables. River's migrations must not run
// inside one transaction (some use CREATE INDEX CONCURRENTLY-like steps), so it is a RunDB migration.
const RiverVersion = 1

// RiverUpgrade is the goose version that brings a database installed by an older River to the schema
// of the River in use (0.51: river_notification, river_client dropped). A new database gets River's
// latest schema at version 1 already, so there it changes nothing.
const RiverUpgrade = 91

// riverBefore is River's own schema version before RiverUpgrade (River 0.41 ended at 6).
const riverBefore = 6

// NewProvider returns a goose provider over the embedded migrations. A Postgres session lock makes
// concurrent replicas starting at once migrate one after another instead of racing.
func NewProvider(db *sql.DB, logger *slog.Logger) (*goose.Provider, error) {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, err
	}
	opts := []goose.ProviderOption{
		goose.WithSessionLocker(locker),
		goose.WithDisableGlobalRegistry(true),
		goose.WithGoMigrations(goose.NewGoMigration(RiverVersion,
			&goose.GoFunc{RunDB: riverUp}, &goose.GoFunc{RunDB: riverDown})),
		goose.WithGoMigrations(goose.NewGoMigration(RiverUpgrade,
			&goose.GoFunc{RunDB: riverUp}, &goose.GoFunc{RunDB: riverDownTo(riverBefore)})),
	}
	if logger != nil {
		opts = append(opts, goose.WithSlog(logger))
	}
	return goose.NewProvider(goose.DialectPostgres, db, sqlFiles, opts...)
}

func riverMigrator(db *sql.DB) (*rivermigrate.Migrator[*sql.Tx], error) {
	return rivermigrate.New(riverdatabasesql.New(db), nil)
}

func riverUp(ctx context.Context, db *sql.DB) error {
	m, err := riverMigrator(db)
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations up: %w", err)
	}
	return nil
}

func riverDown(ctx context.Context, db *sql.DB) error { return riverDownTo(-1)(ctx, db) }

// riverDownTo rolls River's schema back to version v (-1: remove it).
func riverDownTo(v int) func(context.Context, *sql.DB) error {
	return func(ctx context.Context, db *sql.DB) error {
		m, err := riverMigrator(db)
		if err != nil {
			return err
		}
		if _, err := m.Migrate(ctx, rivermigrate.DirectionDown, &rivermigrate.MigrateOpts{TargetVersion: v}); err != nil {
			return fmt.Errorf("river migrations down: %w", err)
		}
		return nil
	}
}
