package conversations

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
)

// StartConversation starts a conversation on the given flow, or on a new draft flow.
func (s *Service) StartConversation(ctx context.Context, req platformapi.StartConversationRequestObject) (platformapi.StartConversationResponseObject, error) {
	p := auth.MustFromContext(ctx)
	phase := "plan"
	var flow uuid.UUID
	if req.Body.FlowId != nil {
		flow = *req.Body.FlowId
		_, def, err := s.d.Flows.Latest(ctx, flow)
		if err != nil {
			return nil, err
		}
		if len(definitionTasks(def)) > 0 {
			phase = "build"
		}
	} else {
		name := "Untitled workflow"
		if req.Body.Title != nil {
			name = *req.Body.Title
		}
		var err error
		if flow, err = s.d.Flows.CreateDraft(ctx, name); err != nil {
			return nil, err
		}
	}
	id := uuid.New()
	if _, err := s.d.DB.ExecContext(ctx, `INSERT INTO conversations (id, organization_id, user_id, flow_id, title, phase)
		VALUES ($1, $2, $3, $4, $5, $6)`, id, p.OrganizationID, p.UserID, flow, req.Body.Title, phase); err != nil {
		return nil, err
	}
	return platformapi.StartConversation201JSONResponse{ConversationId: id, FlowId: &flow}, nil
}

// ListConversations lists the caller's own conversations, newest first.
func (s *Service) ListConversations(ctx context.Context, req platformapi.ListConversationsRequestObject) (platformapi.ListConversationsResponseObject, error) {
	p := auth.MustFromContext(ctx)
	pg := httpx.NewPaging(req.Params.Page, req.Params.Limit)
	const where = ` WHERE c.organization_id = $1 AND c.user_id = $2 AND ($3::uuid IS NULL OR c.flow_id = $3)`
	var total int
	if err := s.d.DB.GetContext(ctx, &total, `SELECT count(*) FROM conversations c`+where, p.OrganizationID, p.UserID, req.Params.FlowId); err != nil {
		return nil, err
	}
	var rows []row
	if err := s.d.DB.SelectContext(ctx, &rows, `SELECT `+columns+from+where+` ORDER BY c.created_at DESC, c.id LIMIT $4 OFFSET $5`,
		p.OrganizationID, p.UserID, req.Params.FlowId, pg.Limit, pg.Offset()); err != nil {
		return nil, err
	}
	out := platformapi.ListConversations200JSONResponse{Conversations: make([]platformapi.ConversationResponse, len(rows)), Total: total}
	for i, r := range rows {
		out.Conversations[i] = r.response()
	}
	return out, nil
}

// GetConversation returns one of the caller's conversations.
func (s *Service) GetConversation(ctx context.Context, req platformapi.GetConversationRequestObject) (platformapi.GetConversationResponseObject, error) {
	r, err := get(ctx, s.d.DB, auth.MustFromContext(ctx), req.Id, false)
	if err != nil {
		return nil, err
	}
	return platformapi.GetConversation200JSONResponse(r.response()), nil
}

// UpdateConversationPhase sets the phase, unless a reply is streaming.
func (s *Service) UpdateConversationPhase(ctx context.Context, req platformapi.UpdateConversationPhaseRequestObject) (platformapi.UpdateConversationPhaseResponseObject, error) {
	p := auth.MustFromContext(ctx)
	var out row
	err := dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		r, err := get(ctx, tx, p, req.Id, true)
		if err != nil {
			return err
		}
		var streaming bool
		if err := tx.GetContext(ctx, &streaming, `SELECT coalesce(streaming_until > now(), false) FROM conversations WHERE id = $1`, r.ID); err != nil {
			return err
		}
		if streaming {
			return httpx.NewError(http.StatusConflict, "conflict", "a reply is streaming for this conversation; change the phase when it has ended")
		}
		if r.Phase != string(req.Body.Phase) {
			if _, err := tx.ExecContext(ctx, `UPDATE conversations SET phase = $2, updated_at = now() WHERE id = $1`, r.ID, req.Body.Phase); err != nil {
				return err
			}
		}
		out, err = get(ctx, tx, p, req.Id, false)
		return err
	})
	if err != nil {
		return nil, err
	}
	return platformapi.UpdateConversationPhase200JSONResponse(out.response()), nil
}

// DeleteConversation deletes the conversation and its messages, cancelling a reply this process streams.
func (s *Service) DeleteConversation(ctx context.Context, req platformapi.DeleteConversationRequestObject) (platformapi.DeleteConversationResponseObject, error) {
	p := auth.MustFromContext(ctx)
	r, err := get(ctx, s.d.DB, p, req.Id, false)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if cancel := s.replies[r.ID]; cancel != nil {
		cancel()
	}
	s.mu.Unlock()
	res, err := s.d.DB.ExecContext(ctx, `DELETE FROM conversations WHERE id = $1`, r.ID)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, errNotFound
	}
	return platformapi.DeleteConversation204Response{}, nil
}

// ListConversationMessages pages through the stored messages, oldest first.
func (s *Service) ListConversationMessages(ctx context.Context, req platformapi.ListConversationMessagesRequestObject) (platformapi.ListConversationMessagesResponseObject, error) {
	p := auth.MustFromContext(ctx)
	pg := httpx.NewPaging(req.Params.Page, req.Params.Limit)
	r, err := get(ctx, s.d.DB, p, req.Id, false)
	if err != nil {
		return nil, err
	}
	var total int
	if err := s.d.DB.GetContext(ctx, &total, `SELECT count(*) FROM chat_messages WHERE conversation_id = $1`, r.ID); err != nil {
		return nil, err
	}
	var msgs []stored
	if err := s.d.DB.SelectContext(ctx, &msgs, `SELECT `+messageColumns+` FROM chat_messages WHERE conversation_id = $1
		ORDER BY created_at, id LIMIT $2 OFFSET $3`, r.ID, pg.Limit, pg.Offset()); err != nil {
		return nil, err
	}
	out := platformapi.ListConversationMessages200JSONResponse{Messages: make([]platformapi.ChatMessageResponse, len(msgs)),
		Total: total, Page: pg.Page, Limit: pg.Limit}
	for i, m := range msgs {
		if out.Messages[i], err = m.response(); err != nil {
			return nil, errors.Join(errors.New("a stored message does not decode"), err)
		}
	}
	return out, nil
}
