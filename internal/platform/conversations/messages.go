package conversations

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/dbx"
)

// stored is a chat message as stored, and as sent on the stream (the same JSON).
type stored struct {
	ID             uuid.UUID       `db:"id" json:"id"`
	CreatedAt      time.Time       `db:"created_at" json:"created_at"`
	UpdatedAt      time.Time       `db:"updated_at" json:"updated_at"`
	ConversationID uuid.UUID       `db:"conversation_id" json:"conversation_id"`
	FlowID         *uuid.UUID      `db:"flow_id" json:"flow_id"`
	Sender         string          `db:"sender" json:"sender"`
	Body           json.RawMessage `db:"body" json:"body"`
}

const messageColumns = `id, created_at, updated_at, conversation_id, flow_id, sender, body`

func (m stored) response() (platformapi.ChatMessageResponse, error) {
	out := platformapi.ChatMessageResponse{Id: m.ID, CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(),
		ConversationId: m.ConversationID, FlowId: m.FlowID, Sender: platformapi.MessageSender(m.Sender)}
	err := out.Body.UnmarshalJSON(m.Body)
	return out, err
}

// Message senders.
const (
	senderUser       = "user"
	senderPlanner    = "Workflow Planner"
	senderAssistant  = "Workflow Assistant"
	senderResolver   = "Error Resolver"
	senderSupervisor = "Supervisor"
)

// store writes a message (a status is not stored: it only gets its id and times).
func store(ctx context.Context, db dbx.DBTX, conv uuid.UUID, flow *uuid.UUID, sender string, body any) (stored, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return stored{}, err
	}
	m := stored{ID: uuid.New(), ConversationID: conv, FlowID: flow, Sender: sender, Body: raw}
	if b, ok := body.(map[string]any); ok && b["type"] == "status" {
		m.CreatedAt = time.Now().UTC()
		m.UpdatedAt = m.CreatedAt
		return m, nil
	}
	err = db.GetContext(ctx, &m, `WITH m AS (INSERT INTO chat_messages (id, conversation_id, flow_id, sender, body)
		VALUES ($1, $2, $3, $4, $5) RETURNING `+messageColumns+`),
		c AS (UPDATE conversations SET updated_at = now() WHERE id = $2)
		SELECT * FROM m`, m.ID, conv, flow, sender, string(raw))
	return m, err
}
