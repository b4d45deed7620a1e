package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

func outboxConfig(t *testing.T, databaseURL string) config.Config {
	t.Helper()
	cfg, err := config.FromEnv(func(k string) string {
		if k == "DATABASE_URL" {
			return databaseURL
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestAdminMailOutbox(t *testing.T) {
	t.Parallel()
	db := testkit.DB(t)
	db.MustExec(`INSERT INTO mail_outbox (created_at, status, attempts, recipient, subject, text_body, sent_at) VALUES
		(now() - interval '3 hours', 'logged', 1, 'ann@example.com', 'Reset your password',
		 E'Hello Ann,\nreset: https://loopwork.test/reset?t=abc\n', now()),
		(now() - interval '1 hour', 'sent', 1, 'carol@example.com', E'Hi \x1b[31mCarol', E'tricky\x1b]0;pwned\x07', now())`)
	db.MustExec(`INSERT INTO mail_outbox (created_at, status, attempts, recipient, subject, text_body, last_error) VALUES
		(now() - interval '2 hours', 'pending', 3, 'bob@example.com', 'Your invitation', 'Join us',
		 E'mail: SMTP connect failed at smtp.example.com:587:\nconnection refused')`)
	cfg := outboxConfig(t, testkit.DSN(t, db))
	ctx := context.Background()
	list := func(t *testing.T, args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := adminMailOutbox(ctx, cfg, args, &out); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out.String()
	}

	t.Run("newest first", func(t *testing.T) {
		out := list(t)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[0], "CREATED") {
			t.Fatalf("output:\n%s", out)
		}
		for i, want := range []string{"carol@example.com", "bob@example.com", "ann@example.com"} {
			if !strings.Contains(lines[i+1], want) {
				t.Fatalf("line %d is %q, want %s", i+1, lines[i+1], want)
			}
		}
		if !strings.Contains(lines[2], "pending") || !strings.Contains(lines[2], "connect failed at smtp.example.com:587: connection refused") {
			t.Fatalf("pending row %q lacks its status or error", lines[2])
		}
		if strings.Contains(out, "reset: https") {
			t.Fatal("bodies printed without --show-body")
		}
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Fatalf("control characters reach the terminal: %q", out)
		}
	})
	t.Run("filters and limits", func(t *testing.T) {
		if out := list(t, "--status", "pending"); !strings.Contains(out, "bob@example.com") || strings.Contains(out, "ann@") || strings.Contains(out, "carol@") {
			t.Fatalf("--status pending:\n%s", out)
		}
		if out := list(t, "--limit", "1"); !strings.Contains(out, "carol@example.com") || strings.Contains(out, "bob@") {
			t.Fatalf("--limit 1:\n%s", out)
		}
		if out := list(t, "--status", "failed"); out != "no failed mail in the outbox\n" {
			t.Fatalf("--status failed: %q", out)
		}
	})
	t.Run("show body", func(t *testing.T) {
		out := list(t, "--show-body", "--status=logged")
		for _, want := range []string{"To:       ann@example.com", "Subject:  Reset your password", "Status:   logged\nAttempts: 1\n",
			"    Hello Ann,\n    reset: https://loopwork.test/reset?t=abc\n"} {
			if !strings.Contains(out, want) {
				t.Fatalf("output lacks %q:\n%s", want, out)
			}
		}
		if out := list(t, "--show-body", "--limit=1"); strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, "tricky") {
			t.Fatalf("body not made printable: %q", out)
		}
	})
	t.Run("bad arguments", func(t *testing.T) {
		for _, args := range [][]string{{"--status", "bounced"}, {"--limit", "0"}, {"--limit", "5000"}, {"--limit", "x"},
			{"--frobnicate"}, {"extra"}} {
			var out bytes.Buffer
			if err := adminMailOutbox(ctx, cfg, args, &out); err == nil {
				t.Errorf("%v accepted", args)
			}
		}
		var out bytes.Buffer
		if err := adminMailOutbox(ctx, cfg, []string{"-h"}, &out); err != nil || !strings.Contains(out.String(), "usage:") {
			t.Fatalf("-h: %v %q", err, out.String())
		}
	})
}

func TestAdminMailOutboxEmptyAndUnconfigured(t *testing.T) {
	t.Parallel()
	db := testkit.DB(t)
	var out bytes.Buffer
	if err := adminMailOutbox(context.Background(), outboxConfig(t, testkit.DSN(t, db)), nil, &out); err != nil ||
		out.String() != "the mail outbox is empty\n" {
		t.Fatalf("empty outbox: %v %q", err, out.String())
	}
	err := adminMailOutbox(context.Background(), outboxConfig(t, ""), nil, &out)
	if err == nil || !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Fatalf("no database: %v", err)
	}
}
