package emailtasks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// receive stores the message's attachments, then records it and starts the task's flow with it in one
// transaction.
func (s *Service) receive(ctx context.Context, t row, m message, size int64) error {
	id := uuid.New()
	received := time.Now().UTC()
	atts := make([]storedAttachment, 0, len(m.Attachments))
	for i, a := range m.Attachments {
		name := path.Base(a.Filename)
		if name == "." || name == "/" || name == ".." {
			name = "attachment"
		}
		rel := fmt.Sprintf("email/%s/%s/%d-%s", t.ID, id, i+1, name)
		if _, err := s.d.Files.Put(ctx, storage.OrgKey(t.Org, rel), bytes.NewReader(a.Data), a.ContentType); err != nil {
			return err
		}
		atts = append(atts, storedAttachment{Filename: name, ContentType: a.ContentType, Size: len(a.Data), URI: storage.URI(rel)})
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
		var inserted bool
		if err := tx.GetContext(ctx, &inserted, `INSERT INTO email_messages (id, organization_id, email_task_id, message_id,
			sender, recipients, subject, size, attachments, received_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
			ON CONFLICT (email_task_id, message_id) WHERE message_id IS NOT NULL DO NOTHING RETURNING true`,
			id, t.Org, t.ID, messageID, m.From, nonNil(m.To), m.Subject, size, string(attsJSON), received); err != nil {
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
		for _, a := range atts {
			s.d.Files.Delete(context.WithoutCancel(ctx), storage.OrgKey(t.Org, strings.TrimPrefix(a.URI, "storage://")))
		}
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
