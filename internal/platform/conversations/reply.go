package conversations

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/loopwork/loopwork/internal/agent/builtin"
	"github.com/loopwork/loopwork/internal/engine/dsl"
)

// pending is what the agent waits for the user to answer.
type pending struct {
	Kind       string         `json:"kind"` // plan or workflow
	Request    string         `json:"request,omitempty"`
	Plan       string         `json:"plan,omitempty"`
	Definition map[string]any `json:"definition,omitempty"`
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
		if err := s.setPending(ctx, e.conv, nil); err != nil {
			return err
		}
		return e.say(ctx, senderAssistant, "I discarded that proposal. Tell me what should change, for example "+
			"\"post it to https://… instead\" or \"send it to review if below 0.8 confidence\", and I will propose it again.")
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
	p := builtin.Propose(text)
	if s.d.Model != nil {
		if e.conv.Phase == "build" {
			return s.buildWithModel(ctx, e, text)
		}
		plan, err := s.planWithModel(ctx, e, text)
		if err != nil {
			return err
		}
		p.Plan, p.Understood = trimmed(plan), true
	}
	if e.conv.Phase == "plan" {
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
	if !p.Understood {
		return e.say(ctx, senderAssistant, p.Plan)
	}
	return s.propose(ctx, e, p.Definition, p.Summary, p.Missing, p.Assumptions)
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
	if s.d.Model != nil {
		return s.buildWithModel(ctx, e, pend.Request+"\n\nThe confirmed plan:\n"+pend.Plan)
	}
	p := builtin.Propose(pend.Request)
	return s.propose(ctx, e, p.Definition, p.Summary, p.Missing, p.Assumptions)
}

// propose offers a definition, only once the flow validator accepts it, with what is missing and what
// was assumed, and asks the user to accept or reject it.
func (s *Service) propose(ctx context.Context, e *emitter, def map[string]any, summary string, missing []builtin.Missing,
	assumed map[string]map[string]any) error {
	if err := e.status(ctx, "validating", "Validating the workflow"); err != nil {
		return err
	}
	if errs := dsl.Validate(roundTrip(def), s.d.Registry).Errors; len(errs) > 0 {
		return fmt.Errorf("the built proposal does not validate: %s", errs[0].Msg)
	}
	version, _, err := s.d.Flows.Latest(ctx, *e.conv.FlowID)
	if err != nil {
		return err
	}
	if err := e.emit(ctx, senderAssistant, map[string]any{"type": "workflow_update", "flow_id": e.conv.FlowID,
		"flow_version": version, "definition": def, "summary": summary, "validation_errors": []any{}}); err != nil {
		return err
	}
	if len(missing) > 0 {
		if err := e.action(ctx, senderAssistant, "missing_task_params", map[string]any{"tasks": missing}); err != nil {
			return err
		}
	}
	if len(assumed) > 0 {
		if err := e.action(ctx, senderAssistant, "assumed_parameters", map[string]any{"tasks_with_assumptions": assumed}); err != nil {
			return err
		}
	}
	if err := e.action(ctx, senderAssistant, "confirmation_request", map[string]any{
		"accept": map[string]any{"message_type": "action", "action": "accept_workflow", "flow_definition": def},
		"reject": map[string]any{"message_type": "action", "action": "reject_workflow", "flow_definition": def}}); err != nil {
		return err
	}
	return s.setPending(ctx, e.conv, &pending{Kind: "workflow", Definition: def})
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
