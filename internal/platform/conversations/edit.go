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
}

// baseOf is what the user is looking at: the pending proposal while it awaits an answer (the user
// refines what they see, not the saved flow), otherwise the flow's latest saved definition.
func (s *Service) baseOf(ctx context.Context, e *emitter) (base, error) {
	version, raw, err := s.d.Flows.Latest(ctx, *e.conv.FlowID)
	if err != nil {
		return base{}, err
	}
	if p := s.pendingOf(e.conv); p != nil && p.Definition != nil && p.Kind == "workflow" {
		b := base{Definition: p.Definition, Version: p.Version}
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
// the built-in agent's edit.
func (s *Service) build(ctx context.Context, e *emitter, b base, request string) error {
	if s.d.Model != nil {
		return s.buildWithModel(ctx, e, b, request)
	}
	p := builtin.Edit(b.Definition, request)
	if !p.Understood {
		return e.say(ctx, senderAssistant, p.Plan)
	}
	return s.propose(ctx, e, b.Version, p)
}
