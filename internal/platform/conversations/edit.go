package conversations

import (
	"context"
	"encoding/json"

	"github.com/loopwork/loopwork/internal/agent/builtin"
)

// base is the definition a build starts from and the saved version of the flow it rests on.
type base struct {
	Definition map[string]any
	Version    int
	// Rejected is set when the definition is one the user rejected without saying why: the next message
	// says why, so it revises that definition rather than editing it.
	Rejected bool
}

// baseOf is what the user is looking at: the pending proposal while it awaits an answer (the user
// refines what they see, not the saved flow), otherwise the flow's latest saved definition.
func (s *Service) baseOf(ctx context.Context, e *emitter) (base, error) {
	version, raw, err := s.d.Flows.Latest(ctx, *e.conv.FlowID)
	if err != nil {
		return base{}, err
	}
	if p := s.pendingOf(e.conv); p != nil && p.Definition != nil && (p.Kind == "workflow" || p.Kind == "revise") {
		b := base{Definition: p.Definition, Version: p.Version, Rejected: p.Kind == "revise"}
		if b.Version == 0 {
			// A proposal stored before proposals kept their version rests on the latest one.
			b.Version = version
		}
		return b, nil
	}
	var def map[string]any
	if err := json.Unmarshal(raw, &def); err != nil {
		return base{}, err
	}
	return base{Definition: def, Version: version}, nil
}

// build answers a request in build phase from the base: the model when one is configured, otherwise
// the built-in agent, which revises a rejected definition and edits any other.
func (s *Service) build(ctx context.Context, e *emitter, b base, request string) error {
	if s.d.Model != nil {
		if b.Rejected {
			request = "The user rejected the current definition. What should change:\n" + request
		}
		return s.buildWithModel(ctx, e, b, request)
	}
	var p builtin.Proposal
	if b.Rejected {
		p = builtin.Revise(b.Definition, request)
	} else {
		p = builtin.Edit(b.Definition, request)
	}
	if !p.Understood {
		return e.say(ctx, senderAssistant, p.Plan)
	}
	return s.propose(ctx, e, b.Version, p)
}

// onReject discards the proposal; nothing is saved. With a reason the rejected definition is revised
// as it says; without one the agent asks what to change and keeps the rejected definition pending, so
// that the answer revises what the user saw rather than the saved flow.
func (s *Service) onReject(ctx context.Context, e *emitter, m userMsg) error {
	b, err := s.baseOf(ctx, e)
	if err != nil {
		return err
	}
	rejected := base{Definition: m.FlowDefinition, Version: b.Version, Rejected: true}
	if m.Reason != "" {
		// The reason is what the user said; the history shows it as any message of theirs.
		if err := e.say(ctx, senderUser, m.Reason); err != nil {
			return err
		}
	}
	// Pending before revising: should the revision fail, the next message still revises the rejected one.
	if err := s.setPending(ctx, e.conv, &pending{Kind: "revise", Definition: m.FlowDefinition, Version: b.Version}); err != nil {
		return err
	}
	if m.Reason == "" {
		return e.say(ctx, senderAssistant, "I discarded that proposal. Tell me what should change, for example "+
			"\"post it to https://… instead\" or \"send it to review if below 0.8 confidence\", and I will propose it again.")
	}
	if err := e.status(ctx, "thinking", "Reading the reason"); err != nil {
		return err
	}
	return s.build(ctx, e, rejected, m.Reason)
}
