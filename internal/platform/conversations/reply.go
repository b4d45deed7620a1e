package conversations

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/loopwork/loopwork/internal/agent/builtin"
	"github.com/loopwork/loopwork/internal/engine/dsl"
)

// pending is what the agent waits for the user to answer: a plan to confirm, a proposal (workflow) to
// accept or reject, or a rejected proposal (revise) whose reason the next message gives.
type pending struct {
	Kind       string         `json:"kind"`
	Request    string         `json:"request,omitempty"`
	Plan       string         `json:"plan,omitempty"`
	Definition map[string]any `json:"definition,omitempty"`
	// Version is the saved version of the flow the definition rests on.
	Version int `json:"version,omitempty"`
}

func (s *Service) setPending(ctx context.Context, conv row, p *pending) error {
	var raw any
	if p != nil {
		b, _ := json.Marshal(p)
		raw = string(b)
	}
	_, err := s.d.DB.ExecContext(ctx, `UPDATE conversations SET pending = $2 WHERE id = $1`, conv.ID, raw)
	return err
}

func (s *Service) pendingOf(conv row) *pending {
	var p *pending
	_ = json.Unmarshal(conv.Pending, &p)
	return p
}

// reply answers one user message or action.
func (s *Service) reply(ctx context.Context, e *emitter, m userMsg) error {
	switch m.Action {
	case "confirm_plan":
		return s.onConfirm(ctx, e)
	case "accept_workflow":
		return s.onAccept(ctx, e, m.FlowDefinition)
	case "reject_workflow":
		return s.onReject(ctx, e, m)
	case "cancel":
		if err := s.setPending(ctx, e.conv, nil); err != nil {
			return err
		}
		return e.say(ctx, senderSupervisor, "Cancelled. Nothing was changed.")
	case "initiate_error_resolve":
		return s.onErrors(ctx, e)
	case "resolve_errors":
		return s.onResolve(ctx, e)
	}
	return s.onText(ctx, e, m.Message)
}

var describeRe = regexp.MustCompile(`(?i)^\s*(summari[sz]e|describe|explain|what does)\b`)

func (s *Service) onText(ctx context.Context, e *emitter, text string) error {
	if err := e.say(ctx, senderUser, text); err != nil {
		return err
	}
	if err := e.status(ctx, "thinking", "Reading the request"); err != nil {
		return err
	}
	if e.conv.Phase == "build" && describeRe.MatchString(text) {
		_, def, err := s.d.Flows.Latest(ctx, *e.conv.FlowID)
		if err != nil {
			return err
		}
		var m map[string]any
		if err := json.Unmarshal(def, &m); err != nil {
			return err
		}
		return e.say(ctx, senderAssistant, builtin.Summarize(m))
	}
	if e.conv.Phase == "build" {
		b, err := s.baseOf(ctx, e)
		if err != nil {
			return err
		}
		return s.build(ctx, e, b, text)
	}
	p := builtin.Propose(text)
	if s.d.Model != nil {
		plan, err := s.planWithModel(ctx, e, text)
		if err != nil {
			return err
		}
		p.Plan, p.Understood = trimmed(plan), true
	}
	if err := e.say(ctx, senderPlanner, p.Plan); err != nil || !p.Understood {
		return err
	}
	if err := e.action(ctx, senderPlanner, "confirmation_request", map[string]any{
		"accept": map[string]any{"message_type": "action", "action": "confirm_plan"},
		"reject": map[string]any{"message_type": "action", "action": "cancel"}}); err != nil {
		return err
	}
	return s.setPending(ctx, e.conv, &pending{Kind: "plan", Request: text, Plan: p.Plan})
}

// onConfirm moves the conversation to build and builds the confirmed plan.
func (s *Service) onConfirm(ctx context.Context, e *emitter) error {
	pend := s.pendingOf(e.conv)
	if _, err := s.d.DB.ExecContext(ctx, `UPDATE conversations SET phase = 'build', updated_at = now() WHERE id = $1`, e.conv.ID); err != nil {
		return err
	}
	e.conv.Phase = "build"
	body := map[string]any{"type": "transition_to_build", "phase": "build", "flow_id": e.conv.FlowID}
	if pend != nil && pend.Plan != "" {
		body["plan"] = pend.Plan
	}
	if err := e.emit(ctx, senderSupervisor, body); err != nil {
		return err
	}
	if pend == nil || pend.Request == "" {
		return e.say(ctx, senderAssistant, "Tell me what the workflow should do and I will build it.")
	}
	// The pending plan is no proposal, so the build starts from the saved flow, which may have tasks
	// when the conversation was moved back to plan.
	b, err := s.baseOf(ctx, e)
	if err != nil {
		return err
	}
	if s.d.Model != nil {
		return s.buildWithModel(ctx, e, b, pend.Request+"\n\nThe confirmed plan:\n"+pend.Plan)
	}
	return s.build(ctx, e, b, pend.Request)
}

// propose offers a definition, only once the flow validator accepts it, with what it changes, what is
// missing and what was assumed, and asks the user to accept or reject it. version is the saved version
// of the flow it rests on. Nothing is saved until the user accepts.
func (s *Service) propose(ctx context.Context, e *emitter, version int, p builtin.Proposal) error {
	def := p.Definition
	if err := e.status(ctx, "validating", "Validating the workflow"); err != nil {
		return err
	}
	if errs := dsl.Validate(roundTrip(def), s.d.Registry).Errors; len(errs) > 0 {
		return fmt.Errorf("the built proposal does not validate: %s", errs[0].Msg)
	}
	update := map[string]any{"type": "workflow_update", "flow_id": e.conv.FlowID, "flow_version": version,
		"definition": def, "summary": p.Summary, "validation_errors": []any{}}
	if len(p.Changes) > 0 {
		update["changes"] = p.Changes
	}
	if err := e.emit(ctx, senderAssistant, update); err != nil {
		return err
	}
	if len(p.Missing) > 0 {
		if err := e.action(ctx, senderAssistant, "missing_task_params", map[string]any{"tasks": p.Missing}); err != nil {
			return err
		}
	}
	if len(p.Assumptions) > 0 {
		if err := e.action(ctx, senderAssistant, "assumed_parameters", map[string]any{"tasks_with_assumptions": p.Assumptions}); err != nil {
			return err
		}
	}
	if err := e.action(ctx, senderAssistant, "confirmation_request", map[string]any{
		"accept": map[string]any{"message_type": "action", "action": "accept_workflow", "flow_definition": def},
		"reject": map[string]any{"message_type": "action", "action": "reject_workflow", "flow_definition": def}}); err != nil {
		return err
	}
	return s.setPending(ctx, e.conv, &pending{Kind: "workflow", Definition: def, Version: version})
}

// onAccept saves the definition as the flow's next version (it was validated before the stream began).
func (s *Service) onAccept(ctx context.Context, e *emitter, def map[string]any) error {
	if err := e.status(ctx, "saving", "Saving the workflow"); err != nil {
		return err
	}
	raw, err := json.Marshal(def)
	if err != nil {
		return err
	}
	version, err := s.d.Flows.SaveDefinition(ctx, *e.conv.FlowID, raw)
	if err != nil {
		return err
	}
	if err := s.setPending(ctx, e.conv, nil); err != nil {
		return err
	}
	if err := e.say(ctx, senderAssistant, fmt.Sprintf("Saved the workflow as version %d of the flow.", version)); err != nil {
		return err
	}
	return e.action(ctx, senderAssistant, "run_workflow_request", map[string]any{"flow_id": e.conv.FlowID})
}

// roundTrip gives a definition the shapes the validator sees in a request (JSON numbers and arrays).
func roundTrip(def map[string]any) any {
	raw, _ := json.Marshal(def)
	var out any
	_ = json.Unmarshal(raw, &out)
	return out
}

func definitionTasks(def json.RawMessage) []any {
	var d struct {
		Tasks []any `json:"tasks"`
	}
	_ = json.Unmarshal(def, &d)
	return d.Tasks
}
