package conversations

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/agent/builtin"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/llm"
)

// RunDirectAgent runs one agent on one prompt, statelessly, within the agent timeout (504 past it).
func (s *Service) RunDirectAgent(ctx context.Context, req platformapi.RunDirectAgentRequestObject) (platformapi.RunDirectAgentResponseObject, error) {
	p := auth.MustFromContext(ctx)
	if err := s.allow(ctx, p); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.d.Timeout)
	defer cancel()
	b := req.Body
	kind := platformapi.WORKFLOWBUILDER
	if b.AgentType != nil {
		kind = *b.AgentType
	}
	var chunks []platformapi.AgentResponseChunk
	add := func(t platformapi.AgentResponseChunkType, content any) {
		chunks = append(chunks, platformapi.AgentResponseChunk{Type: t, Content: content})
	}
	state := stateDefinition(b.WorkflowState)
	if s.d.Model != nil {
		chunks, err := s.directWithModel(ctx, p.OrganizationID, kind, b.Prompt, state)
		if ctx.Err() != nil {
			return nil, httpx.NewError(http.StatusGatewayTimeout, "timeout", "the agent took longer than %s", s.d.Timeout)
		}
		if llm.IsUpstream(err) {
			return nil, httpx.NewError(http.StatusBadGateway, "upstream_unavailable", "%v", err)
		}
		if err != nil {
			return nil, err
		}
		return platformapi.RunDirectAgent200JSONResponse{Chunks: chunks}, nil
	}
	switch kind {
	case platformapi.WORKFLOWSUMMARIZER:
		add(platformapi.AgentResponseChunkTypeAssistant, builtin.Summarize(state))
	case platformapi.WORKFLOWPLANNER:
		add(platformapi.AgentResponseChunkTypeAssistant, builtin.Propose(b.Prompt).Plan)
	default:
		// With a workflow state the prompt edits it; without one the state has no tasks, and an edit of
		// nothing is a new workflow.
		prop := builtin.Edit(state, b.Prompt)
		add(platformapi.AgentResponseChunkTypeReasoning, prop.Plan)
		if !prop.Understood {
			add(platformapi.AgentResponseChunkTypeAssistant, "I could not build a workflow from that; describe its steps.")
			break
		}
		add(platformapi.AgentResponseChunkTypeToolCall, map[string]any{"name": "propose_workflow", "arguments": map[string]any{"request": b.Prompt}})
		add(platformapi.AgentResponseChunkTypeToolReturn, map[string]any{"definition": prop.Definition, "missing": prop.Missing,
			"assumptions": prop.Assumptions, "changes": prop.Changes})
		add(platformapi.AgentResponseChunkTypeToolCall, map[string]any{"name": "validate_workflow", "arguments": map[string]any{"definition": prop.Definition}})
		errs := dsl.Validate(roundTrip(prop.Definition), s.d.Registry).Errors
		add(platformapi.AgentResponseChunkTypeToolReturn, map[string]any{"valid": len(errs) == 0, "validation_errors": errs})
		add(platformapi.AgentResponseChunkTypeAssistant, prop.Summary)
	}
	if ctx.Err() != nil {
		return nil, httpx.NewError(http.StatusGatewayTimeout, "timeout", "the agent took longer than %s", s.d.Timeout)
	}
	return platformapi.RunDirectAgent200JSONResponse{Chunks: chunks}, nil
}

// stateDefinition turns the direct agent's workflow state into a flow definition: task ids become
// names and dependencies edges.
func stateDefinition(st *platformapi.WorkflowState) map[string]any {
	tasks, edges := []any{}, []any{}
	if st != nil {
		for _, t := range st.Tasks {
			tasks = append(tasks, map[string]any{"name": t.Id, "type": t.Type, "parameters": t.Parameters})
			if t.Dependencies != nil {
				for _, d := range *t.Dependencies {
					edges = append(edges, map[string]any{"source": d, "target": t.Id})
				}
			}
		}
	}
	var out map[string]any
	raw, _ := json.Marshal(map[string]any{"version": 1, "tasks": tasks, "edges": edges})
	_ = json.Unmarshal(raw, &out)
	return out
}
