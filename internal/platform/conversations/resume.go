package conversations

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/httpx"
)

// resume answers a reconnection: after done there is nothing more (204, which stops EventSource
// clients); after a message, the stored messages that followed it are replayed, then done. The body
// of the request is not acted on again.
func (s *Service) resume(ctx context.Context, conv row, last string) (platformapi.StreamConversationChatResponseObject, error) {
	if strings.HasPrefix(last, "done:") {
		return platformapi.StreamConversationChat204Response{}, nil
	}
	id, err := uuid.Parse(last)
	unknown := httpx.NotFound("event " + last + " of this conversation")
	if err != nil {
		return nil, unknown
	}
	var exists bool
	if err := s.d.DB.GetContext(ctx, &exists, `SELECT EXISTS (SELECT FROM chat_messages WHERE conversation_id = $1 AND id = $2)`, conv.ID, id); err != nil {
		return nil, err
	}
	if !exists {
		return nil, unknown
	}
	var after []stored
	if err := s.d.DB.SelectContext(ctx, &after, `SELECT `+messageColumns+` FROM chat_messages
		WHERE conversation_id = $1 AND (created_at, id) > (SELECT created_at, id FROM chat_messages WHERE id = $2)
		ORDER BY created_at, id LIMIT 10000`, conv.ID, id); err != nil {
		return nil, err
	}
	return replay{conv: conv, msgs: after}, nil
}

type replay struct {
	conv row
	msgs []stored
}

func (r replay) VisitStreamConversationChatResponse(w http.ResponseWriter) error {
	out := newSSE(w)
	for _, m := range r.msgs {
		name := "message"
		var body struct{ Type string }
		if err := json.Unmarshal(m.Body, &body); err == nil && body.Type != "" {
			name = body.Type
		}
		if err := out.event(name, m.ID.String(), m); err != nil {
			return nil
		}
	}
	out.event("done", doneID(), map[string]any{"conversation_id": r.conv.ID, "phase": r.conv.Phase})
	return nil
}
