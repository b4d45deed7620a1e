package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/dbx"
)

const adminMailOutboxUsage = "usage: loopwork admin mail-outbox [--limit N] [--status pending|sent|logged|failed] [--show-body]"

// outboxEntry is one mail_outbox row as an operator sees it.
type outboxEntry struct {
	CreatedAt time.Time `db:"created_at"`
	Status    string    `db:"status"`
	Attempts  int       `db:"attempts"`
	Recipient string    `db:"recipient"`
	Subject   string    `db:"subject"`
	Text      string    `db:"text_body"`
	LastError *string   `db:"last_error"`
}

// adminMailOutbox prints the newest outbox rows. Without SMTP, mail is only logged and kept in the
// outbox, so this is how an operator finds an invitation or password link a user never received.
func adminMailOutbox(ctx context.Context, cfg config.Config, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("admin mail-outbox", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	limit := fs.Int("limit", 20, "how many rows to show, newest first (1-1000)")
	status := fs.String("status", "", "only rows with this status: pending, sent, logged or failed")
	showBody := fs.Bool("show-body", false, "print each message's text body")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(out, adminMailOutboxUsage)
			return nil
		}
		return fmt.Errorf("%v\n%s", err, adminMailOutboxUsage)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q\n%s", fs.Arg(0), adminMailOutboxUsage)
	}
	if *limit < 1 || *limit > 1000 {
		return fmt.Errorf("--limit %d: must be between 1 and 1000", *limit)
	}
	switch *status {
	case "", "pending", "sent", "logged", "failed":
	default:
		return fmt.Errorf("--status %q: must be pending, sent, logged or failed", *status)
	}
	if err := cfg.RequireDatabase(); err != nil {
		return err
	}
	db, err := dbx.Open(ctx, cfg.DatabaseURL, dbx.PoolOptions{MaxOpenConns: 1, MaxIdleConns: 1})
	if err != nil {
		return err
	}
	defer db.Close()

	var rows []outboxEntry
	err = db.SelectContext(ctx, &rows, `SELECT created_at, status, attempts, recipient, subject, text_body, last_error
		FROM mail_outbox WHERE $1 = '' OR status = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, *status, *limit)
	if err != nil {
		return fmt.Errorf("read the mail outbox: %w", err)
	}
	if len(rows) == 0 {
		if *status != "" {
			fmt.Fprintf(out, "no %s mail in the outbox\n", *status)
		} else {
			fmt.Fprintln(out, "the mail outbox is empty")
		}
		return nil
	}
	if *showBody {
		printOutboxMessages(out, rows)
		return nil
	}
	return printOutboxTable(out, rows)
}

func printOutboxTable(out io.Writer, rows []outboxEntry) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CREATED\tSTATUS\tATTEMPTS\tRECIPIENT\tSUBJECT\tLAST ERROR")
	for _, r := range rows {
		lastError := ""
		if r.LastError != nil {
			lastError = shorten(oneLine(*r.LastError), 100)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", r.CreatedAt.UTC().Format(time.RFC3339), r.Status, r.Attempts,
			oneLine(r.Recipient), oneLine(r.Subject), lastError)
	}
	return tw.Flush()
}

func printOutboxMessages(out io.Writer, rows []outboxEntry) {
	for i, r := range rows {
		if i > 0 {
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "Created:  %s\nStatus:   %s\nAttempts: %d\nTo:       %s\nSubject:  %s\n",
			r.CreatedAt.UTC().Format(time.RFC3339), r.Status, r.Attempts, oneLine(r.Recipient), oneLine(r.Subject))
		if r.LastError != nil {
			fmt.Fprintf(out, "Error:    %s\n", oneLine(*r.LastError))
		}
		fmt.Fprintln(out)
		for _, line := range strings.Split(strings.TrimRight(r.Text, "\r\n"), "\n") {
			fmt.Fprintf(out, "    %s\n", printable(strings.TrimRight(line, "\r")))
		}
	}
}

// printable replaces control characters: subjects and bodies can carry text users typed (a name,
// an organization), and an escape sequence in it must not drive the operator's terminal.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' {
			return ' '
		}
		if unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

// oneLine keeps a table cell on its row.
func oneLine(s string) string {
	return printable(strings.Join(strings.Fields(s), " "))
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
