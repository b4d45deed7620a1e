package conversations

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/httpx"
)

// userMsg is the user's message of a chat request, whichever of its shapes it has.
type userMsg struct {
	MessageType    string         `json:"message_type"`
	Message        string         `json:"message"`
	Action         string         `json:"action"`
	FlowDefinition map[string]any `json:"flow_definition"`
	Reason         string         `json:"reason"`
}

// phaseOf is the phase an action is valid in ("" for any).
var phaseOf = map[string]string{"confirm_plan": "plan", "initiate_error_resolve": "build", "resolve_errors": "build"}

// StreamConversationChat checks everything that can fail before the first event (the conversation,
// the action's phase, an accepted definition, the rate, another reply streaming), then answers with
// the stream.
func (s *Service) StreamConversationChat(ctx context.Context, req platformapi.StreamConversationChatRequestObject) (platformapi.StreamConversationChatResponseObject, error) {
	p := auth.MustFromContext(ctx)
	raw, err := req.Body.Message.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var m userMsg
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	conv, err := get(ctx, s.d.DB, p, req.Id, false)
	if err != nil {
		return nil, err
	}
	if last := req.Params.LastEventID; last != nil && *last != "" {
		return s.resume(ctx, conv, *last)
	}
	if want := phaseOf[m.Action]; want != "" && conv.Phase != want {
		return nil, httpx.NewError(http.StatusConflict, "invalid_phase", "%s is valid in phase %s; the conversation is in phase %s",
			m.Action, want, conv.Phase)
	}
	if m.Action == "accept_workflow" {
		if errs := dsl.Validate(m.FlowDefinition, s.d.Registry).Errors; len(errs) > 0 {
			return nil, invalidDefinition(errs)
		}
	}
	if conv.FlowID == nil {
		return nil, httpx.NewError(http.StatusConflict, "conflict", "the conversation's flow was deleted; start a new conversation")
	}
	if err := s.allow(ctx, p); err != nil {
		return nil, err
	}
	res, err := s.d.DB.ExecContext(ctx, `UPDATE conversations SET streaming_until = now() + $2::interval WHERE id = $1
		AND (streaming_until IS NULL OR streaming_until < now())`, conv.ID, fmt.Sprintf("%d seconds", int(s.d.Timeout.Seconds())+5))
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, httpx.NewError(http.StatusConflict, "conflict", "another reply is streaming for this conversation")
	}
	return &streamReply{s: s, ctx: ctx, conv: conv, msg: m}, nil
}

// allow counts one agent reply against the organization's rate.
func (s *Service) allow(ctx context.Context, p *auth.Principal) error {
	ok, retry, err := s.d.Limiter.Allow(ctx, "agent:"+p.OrganizationID.String(), s.d.PerMinute, time.Minute)
	if err != nil {
		return err
	}
	if !ok {
		return httpx.TooManyRequests(retry, fmt.Sprintf("more than %d agent replies a minute in this organization", s.d.PerMinute))
	}
	return nil
}

// invalidDefinition is the 422 of an accepted definition the validator refuses.
func invalidDefinition(errs []dsl.Error) error {
	items := make([]httpx.ValidationItem, len(errs))
	for i, e := range errs {
		loc := append([]any{"body", "message", "flow_definition"}, e.Loc[1:]...)
		items[i] = httpx.ValidationItem{Loc: loc, Msg: e.Msg, Type: e.Type}
	}
	return httpx.InvalidItems(items)
}

type streamReply struct {
	s    *Service
	ctx  context.Context
	conv row
	msg  userMsg
}

// VisitStreamConversationChatResponse runs the reply, sending each event as it is stored, keep-alive
// comments while it works, and done last; the client leaving cancels the reply.
func (r *streamReply) VisitStreamConversationChatResponse(w http.ResponseWriter) error {
	s := r.s
	ctx, cancel := context.WithTimeout(r.ctx, s.d.Timeout)
	defer cancel()
	s.mu.Lock()
	s.replies[r.conv.ID] = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.replies, r.conv.ID)
		s.mu.Unlock()
		release, stop := context.WithTimeout(context.Background(), 5*time.Second)
		defer stop()
		s.d.DB.ExecContext(release, `UPDATE conversations SET streaming_until = NULL WHERE id = $1`, r.conv.ID)
	}()
	out := newSSE(w)
	working := make(chan struct{})
	go func() {
		t := time.NewTicker(s.d.KeepAlive)
		defer t.Stop()
		for {
			select {
			case <-working:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				out.comment("keep-alive")
			}
		}
	}()
	e := &emitter{s: s, out: out, conv: r.conv}
	err := s.reply(ctx, e, r.msg)
	close(working)
	if ctx.Err() != nil && r.ctx.Err() != nil {
		return nil // the client left: nobody to tell
	}
	if err != nil {
		s.d.Logger.Warn("agent reply failed", "conversation", r.conv.ID, "error", err)
		code, msg := "internal_error", "the reply failed"
		if ctx.Err() != nil {
			code, msg = "timeout", fmt.Sprintf("the reply took longer than %s", s.d.Timeout)
		}
		out.event("error", uuid.NewString(), map[string]any{"error": map[string]any{"code": code, "message": msg}})
	}
	phase := r.conv.Phase
	s.d.DB.GetContext(context.Background(), &phase, `SELECT phase FROM conversations WHERE id = $1`, r.conv.ID)
	out.event("done", doneID(), map[string]any{"conversation_id": r.conv.ID, "phase": phase})
	return nil
}

// doneID is the id of a done event: recognisable when a client reconnects with it.
func doneID() string { return "done:" + uuid.NewString() }

// emitter stores each message of a reply, then sends it.
type emitter struct {
	s    *Service
	out  *sse
	conv row
}

func (e *emitter) emit(ctx context.Context, sender string, body map[string]any) error {
	m, err := store(ctx, e.s.d.DB, e.conv.ID, e.conv.FlowID, sender, body)
	if err != nil {
		return err
	}
	return e.out.event(body["type"].(string), m.ID.String(), m)
}

func (e *emitter) status(ctx context.Context, stage, content string) error {
	return e.emit(ctx, "assistant", map[string]any{"type": "status", "stage": stage, "content": content})
}

func (e *emitter) say(ctx context.Context, sender, text string) error {
	return e.emit(ctx, sender, map[string]any{"type": "message", "content": text})
}

func (e *emitter) action(ctx context.Context, sender, kind string, data any) error {
	return e.emit(ctx, sender, map[string]any{"type": "action", "action_type": kind, "data": data})
}
