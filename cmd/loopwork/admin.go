package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/dbx"
)

const adminUsage = `usage: loopwork admin <command>

commands:
  create-user --email E --password P --role R [--org NAME] [--first-name F] [--last-name L] [--if-no-users]
      create a user who can sign in at once (the organization too, when named and missing; default "loopwork")
  mail-outbox [--limit N] [--status S] [--show-body]
      print recent outgoing e-mail (with no SMTP configured, mail is only logged and kept there)
  rekey --new-key K
      re-seal every stored secret (credentials, token signing keys) under a new encryption key, in one
      transaction; LOOPWORK_ENCRYPTION_KEY must be the key in use. Then set it to K and restart the servers
`

func admin(ctx context.Context, cfg config.Config, args []string, out io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(out, adminUsage)
		return errors.New("no admin command given")
	}
	if err := cfg.RequireDatabase(); err != nil {
		return fmt.Errorf("%w\n%s", err, devDatabaseHint(".data"))
	}
	switch args[0] {
	case "create-user":
		return adminCreateUser(ctx, cfg, args[1:], out)
	case "mail-outbox":
		return adminMailOutbox(ctx, cfg, args[1:], out)
	case "rekey":
		return adminRekey(ctx, cfg, args[1:], out)
	}
	fmt.Fprint(out, adminUsage)
	return fmt.Errorf("unknown admin command %q", args[0])
}

// adminCreateUser bootstraps accounts without the invitation round trip: the first administrator of a
// new installation, or an operator who lost access.
func adminCreateUser(ctx context.Context, cfg config.Config, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("create-user", flag.ContinueOnError)
	fs.SetOutput(out)
	email := fs.String("email", "", "e-mail address (required)")
	password := fs.String("password", "", "password, at least 8 characters (required)")
	role := fs.String("role", "", "org_admin, backoffice, app_user or integration (required)")
	orgName := fs.String("org", "loopwork", "organization name; created when missing")
	first := fs.String("first-name", "Admin", "first name")
	last := fs.String("last-name", "User", "last name")
	ifNone := fs.Bool("if-no-users", false, "do nothing when any user exists (for first-run scripts)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case !strings.Contains(*email, "@"):
		return errors.New("--email: a valid e-mail address is required")
	case len(*password) < 8:
		return errors.New("--password: at least 8 characters are required")
	case !auth.Role(*role).Valid():
		return fmt.Errorf("--role %q: must be org_admin, backoffice, app_user or integration", *role)
	case strings.TrimSpace(*orgName) == "" || len(*orgName) > 200:
		return errors.New("--org: 1 to 200 characters")
	}
	db, err := dbx.Open(ctx, cfg.DatabaseURL, dbx.PoolOptions{MaxOpenConns: 2, MaxIdleConns: 1})
	if err != nil {
		return err
	}
	defer db.Close()
	if *ifNone {
		var any bool
		if err := db.GetContext(ctx, &any, `SELECT EXISTS (SELECT 1 FROM users)`); err != nil {
			return err
		}
		if any {
			fmt.Fprintln(out, "users exist already; nothing created")
			return nil
		}
	}
	hash, err := auth.HashPassword(*password)
	if err != nil {
		return err
	}
	var userID, orgID uuid.UUID
	err = dbx.WithTx(ctx, db, func(tx *sqlx.Tx) error {
		err := tx.GetContext(ctx, &orgID, `SELECT id FROM organizations WHERE name = $1`, strings.TrimSpace(*orgName))
		if dbx.IsNoRows(err) {
			err = tx.GetContext(ctx, &orgID, `INSERT INTO organizations (name) VALUES ($1) RETURNING id`, strings.TrimSpace(*orgName))
		}
		if err != nil {
			return err
		}
		err = tx.GetContext(ctx, &userID, `INSERT INTO users (organization_id, email, first_name, last_name, role, password_hash, email_confirmed_at)
			VALUES ($1, $2, $3, $4, $5, $6, now()) RETURNING id`, orgID, *email, *first, *last, *role, hash)
		if errors.Is(dbx.Translate(err), dbx.ErrConflict) {
			return fmt.Errorf("--email: %s already has an account in organization %q", *email, *orgName)
		}
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "created %s user %s (id %s) in organization %q (id %s)\n", *role, *email, userID, *orgName, orgID)
	return nil
}

// devDatabaseHint tells someone who runs the server with `make run` how to reach the same database:
// make run keeps its settings in the data folder, and a shell that did not start it has none of them.
func devDatabaseHint(data string) string {
	hint := "beside `make run`, use: make admin ARGS='<command> …' (it finds the database and settings make run keeps)"
	raw, err := os.ReadFile(filepath.Join(data, "run.env"))
	if err != nil {
		return hint
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if url, ok := strings.CutPrefix(strings.TrimSpace(line), "DATABASE_URL="); ok && url != "" {
			return hint + "\nor export the URL of its database first:\n  export DATABASE_URL='" + url + "'"
		}
	}
	return hint
}
