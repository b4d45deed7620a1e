package mail

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	netmail "net/mail"
	"strings"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/queue"
)

// EnqueueOnce is Enqueue for mail caused by something that may happen twice (an attempt of a flow's
// email task delivered again): the first call with a key writes the mail, later calls with the same key
// write nothing and return what the first one wrote. m.MessageID, when empty, is made up under domain.
// It returns the outbox row and the Message-ID, without angle brackets.
func EnqueueOnce(ctx context.Context, tx *sqlx.Tx, q *queue.Client, key, domain string, m Message) (uuid.UUID, string, error) {
	if key == "" {
		return uuid.Nil, "", errors.New("mail: EnqueueOnce needs a key")
	}
	if m.MessageID == "" {
		m.MessageID = NewMessageID(domain)
	}
	var row struct {
		ID        uuid.UUID `db:"id"`
		MessageID string    `db:"message_id"`
	}
	// ON CONFLICT DO NOTHING waits for a concurrent writer of the same key to commit or roll back, so
	// two transactions cannot both write it; the one that finds it returns the row already there.
	err := tx.GetContext(ctx, &row, `INSERT INTO mail_outbox (organization_id, recipient, subject, text_body, html_body,
		also_to, cc, bcc, message_id, idempotency_key) VALUES ($1, $2, $3, $4, NULLIF($5, ''), $6, $7, $8, $9, $10)
		ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING RETURNING id, message_id`,
		m.OrganizationID, m.To, m.Subject, m.Text, m.HTML, pq.Array(nonNil(m.AlsoTo)), pq.Array(nonNil(m.Cc)),
		pq.Array(nonNil(m.Bcc)), m.MessageID, key)
	if errors.Is(err, sql.ErrNoRows) {
		err = tx.GetContext(ctx, &row, `SELECT id, coalesce(message_id, '') AS message_id FROM mail_outbox
			WHERE idempotency_key = $1`, key)
		if err != nil {
			return uuid.Nil, "", fmt.Errorf("read outbox: %w", err)
		}
		return row.ID, row.MessageID, nil
	}
	if err != nil {
		return uuid.Nil, "", fmt.Errorf("write outbox: %w", err)
	}
	if _, err := q.InsertTx(ctx, tx.Tx, SendArgs{OutboxID: row.ID}, nil); err != nil {
		return uuid.Nil, "", fmt.Errorf("schedule mail: %w", err)
	}
	return row.ID, row.MessageID, nil
}

// MessageIDFor is the Message-ID (without angle brackets) of the mail written under an idempotency key:
// every delivery of the same attempt makes the same one, so the attempt's output can name it before the
// transaction that writes the mail opens.
func MessageIDFor(key, domain string) string {
	sum := sha256.Sum256([]byte("loopwork-mail\x00" + key))
	return hex.EncodeToString(sum[:16]) + "@" + domain
}

// NewMessageID is a random Message-ID (without angle brackets) under domain.
func NewMessageID(domain string) string {
	return messageID("@" + domain)
}

// Domain is the domain of the configured sender address, under which Message-IDs are made up.
func Domain(cfg config.Config) string {
	if a, err := netmail.ParseAddress(cfg.SMTPFrom); err == nil {
		return a.Address[strings.LastIndexByte(a.Address, '@')+1:]
	}
	return "localhost"
}

// nonNil keeps a nil list from reaching a NOT NULL array column as NULL.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
