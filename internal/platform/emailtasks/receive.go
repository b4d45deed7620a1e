package emailtasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/platform/executions"
	"github.com/loopwork/loopwork/internal/platform/storage"
)

type storedAttachment struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int    `json:"size"`
	URI         string `json:"uri"`
}

// attachmentKey is where an attachment of a task's message is stored.
func (s *Service) attachmentKey(t row, a storedAttachment) string {
	return storage.OrgKey(t.Org, strings.TrimPrefix(a.URI, "storage://"))
}

// storeAttachment writes the attachment numbered n of message id to storage as it is read.
func (s *Service) storeAttachment(ctx context.Context, t row, id uuid.UUID, n int, filename, contentType string, body io.Reader) (storedAttachment, error) {
	name := path.Base(filename)
	if name == "." || name == "/" || name == ".." {
		name = "attachment"
	}
	rel := fmt.Sprintf("email/%s/%s/%d-%s", t.ID, id, n, name)
	info, err := s.d.Files.Put(ctx, storage.OrgKey(t.Org, rel), body, contentType)
	if err != nil {
		return storedAttachment{}, err
	}
	return storedAttachment{Filename: name, ContentType: contentType, Size: int(info.Size), URI: storage.URI(rel)}, nil
}

// copyAttachments copies the attachments stored for task from to message id of task to, which may be
// another organization's: each keeps its own copy under its own prefix.
func (s *Service) copyAttachments(ctx context.Context, from, to row, id uuid.UUID, atts []storedAttachment) ([]storedAttachment, error) {
	out := make([]storedAttachment, 0, len(atts))
	for i, a := range atts {
		r, _, err := s.d.Files.Open(ctx, s.attachmentKey(from, a))
		if err != nil {
			s.discard(ctx, to, out)
			return nil, err
		}
		c, err := s.storeAttachment(ctx, to, id, i+1, a.Filename, a.ContentType, r)
		r.Close()
		if err != nil {
			s.discard(ctx, to, out)
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// receive records the message (whose attachments are stored already) and starts the task's flow with
// it in one transaction.
func (s *Service) receive(ctx context.Context, t row, id uuid.UUID, m message, atts []storedAttachment, size int64) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	received := time.Now().UTC()
	if atts == nil {
		atts = []storedAttachment{}
	}
	input, err := json.Marshal(map[string]any{"from": m.From, "to": nonNil(m.To), "subject": m.Subject, "text": m.Text,
		"html": m.HTML, "received_at": received.Format(time.RFC3339Nano), "attachments": atts, "message_id": m.MessageID,
		"email_task_id": t.ID, "task_name": t.TaskName})
	if err != nil {
		return err
	}
	attsJSON, _ := json.Marshal(atts)
	var st *run.Started
	var dup bool
	var messageID *string
	if m.MessageID != "" {
		messageID = &m.MessageID
	}
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		// A delivery is a repetition only when both its Message-ID and its content match one recorded:
		// anyone can write any Message-ID, so it alone would let a forged message suppress a real one.
		var inserted bool
		if err := tx.GetContext(ctx, &inserted, `INSERT INTO email_messages (id, organization_id, email_task_id, message_id,
			content_digest, sender, recipients, subject, size, attachments, received_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (email_task_id, message_id, content_digest) WHERE message_id IS NOT NULL DO NOTHING RETURNING true`,
			id, t.Org, t.ID, messageID, m.Digest, m.From, nonNil(m.To), m.Subject, size, string(attsJSON), received); err != nil {
			if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
				dup = true // delivered before
				return nil
			}
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE email_tasks SET email_count = email_count + 1, last_email_received = $2
			WHERE id = $1`, t.ID, received); err != nil {
			return err
		}
		if t.FlowID == nil {
			return nil
		}
		reason, err := s.start(ctx, tx, t, id, input, &st)
		if reason != "" {
			_, err = tx.ExecContext(ctx, `UPDATE email_messages SET not_started = $2 WHERE id = $1`, id, reason)
		}
		return err
	})
	if err != nil || dup {
		st.Drop()
		// Nothing refers to the attachments stored for this delivery: it failed (the sender will deliver
		// again), or it repeated one recorded before.
		s.discard(ctx, t, atts)
		return err
	}
	st.Run()
	return nil
}

// start starts the task's flow with the message (its latest published version, else its latest valid
// one) and names the execution on the message; it answers why not when the flow has no version that
// can run or the organization no credits — the message is still recorded.
func (s *Service) start(ctx context.Context, tx *sqlx.Tx, t row, msg uuid.UUID, input []byte, st **run.Started) (string, error) {
	version, ok, err := executions.JobVersion(ctx, tx, *t.FlowID)
	if err != nil || !ok {
		return "the flow has no valid version", err
	}
	if _, err := tx.ExecContext(ctx, `SAVEPOINT credits`); err != nil {
		return "", err
	}
	if err := credits.Reserve(ctx, tx, t.Org, 1); errors.Is(err, credits.ErrNoCredits) {
		_, err = tx.ExecContext(ctx, `ROLLBACK TO SAVEPOINT credits`)
		return "the organization has no credits left", err
	} else if err != nil {
		return "", err
	}
	x, started, err := executions.Create(ctx, tx, s.d.Engine, executions.Spec{Org: t.Org, Flow: *t.FlowID, Version: version,
		Input: input, Actor: "email_task"})
	*st = started
	if err != nil {
		return "", err
	}
	_, err = tx.ExecContext(ctx, `UPDATE email_messages SET execution_id = $2 WHERE id = $1`, msg, x.ID)
	return "", err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
