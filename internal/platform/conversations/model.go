package conversations

import (
	"context"
	"encoding/json"

	"fmt"
	"sort"
	"strings"

	"github.com/loopwork/loopwork/internal/agent/builtin"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/llm"
)

// maxRounds bounds the exchanges of one reply with the model (tool calls and their answers).
const maxRounds = 6

var tools = []llm.Tool{
	{Name: "list_task_types", Description: "Lists the task types a workflow may use, with the JSON schema of each one's parameters.",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{}}},
	{Name: "propose_workflow", Description: "Proposes a complete flow definition to the user. It is validated first: " +
		"when it has errors they are returned, fix them and propose again.",
		Parameters: map[string]any{"type": "object", "required": []any{"definition", "summary"}, "properties": map[string]any{
			"definition": map[string]any{"type": "object", "description": `{"version": 1, "tasks": [{"name", "type", "parameters"}], "edges": [{"source", "target", "branch", "condition"}]}`},
			"summary":    map[string]any{"type": "string", "description": "What the workflow does, in prose."}}}},
}

const builderPrompt = "You are the Workflow Assistant of loopwork. You build flow definitions: tasks (name, type, " +
	"parameters, optional retry and timeout_seconds) and edges (source, target, optional jq condition on the source's " +
	"output; out of a condition task, branch true or false says which result the edge follows). Every jq expression " +
	"and {{ }} template may read $input (the execution's input) and $tasks.<name> (the output of a task upstream), " +
	"so later tasks need no extra edges to reach earlier data. Call list_task_types to learn the task types, then call propose_workflow with a complete definition. " +
	"Parameters you cannot know, use a clear placeholder and say so in the summary."

const plannerPrompt = "You are the Workflow Planner of loopwork. Restate what the user wants as a short numbered plan " +
	"of workflow steps (markdown), ask about anything unclear, and end by asking the user to confirm the plan."

// write streams a model's text answer to the client as transient status events and answers it whole.
func (s *Service) write(ctx context.Context, e *emitter, req llm.Request) (llm.Response, error) {
	req.Model = s.d.ModelName
	res, err := s.d.Model.Stream(ctx, req, func(d llm.Delta) error {
		if d.Text != "" {
			return e.status(ctx, "writing", d.Text)
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	// Each model call is recorded as usage of the organization, like an llm task's.
	_, err = credits.Record(ctx, s.d.DB, credits.Usage{OrganizationID: e.conv.Org, ProductID: credits.LLMCallProduct, Amount: 1,
		CreatedBy: "agent", Metadata: map[string]any{"model": s.d.ModelName, "conversation_id": e.conv.ID,
			"input_tokens": res.Usage.InputTokens, "output_tokens": res.Usage.OutputTokens}})
	return res, err
}

// planWithModel has the model write the plan.
func (s *Service) planWithModel(ctx context.Context, e *emitter, text string) (string, error) {
	res, err := s.write(ctx, e, llm.Request{Messages: []llm.Message{{Role: "system", Content: plannerPrompt}, {Role: "user", Content: text}}})
	return res.Text, err
}

// buildWithModel lets the model build on the base with its tools until it proposes a definition the
// validator accepts, which is then offered; a definition with errors goes back to the model, never to
// the user.
func (s *Service) buildWithModel(ctx context.Context, e *emitter, b base, request string) error {
	current, err := json.Marshal(b.Definition)
	if err != nil {
		return err
	}
	msgs := []llm.Message{{Role: "system", Content: builderPrompt},
		{Role: "user", Content: "The current definition:\n" + string(current) + "\n\nRequest:\n" + request}}
	for round := 0; round < maxRounds; round++ {
		res, err := s.write(ctx, e, llm.Request{Messages: msgs, Tools: tools})
		if err != nil {
			return err
		}
		if len(res.ToolCalls) == 0 {
			return e.say(ctx, senderAssistant, res.Text)
		}
		msgs = append(msgs, llm.Message{Role: "assistant", Content: res.Text, ToolCalls: res.ToolCalls})
		for _, call := range res.ToolCalls {
			if err := e.status(ctx, "calling_tool", "Calling "+call.Name); err != nil {
				return err
			}
			answer, def, summary := s.runTool(call)
			if def != nil {
				return s.propose(ctx, e, b.Version, builtin.Proposal{Definition: def, Summary: summary})
			}
			msgs = append(msgs, llm.Message{Role: "tool", ToolCallID: call.ID, Content: answer})
		}
	}
	return fmt.Errorf("the model proposed no valid workflow in %d rounds", maxRounds)
}

// runTool answers a tool call; a valid proposal comes back as def.
func (s *Service) runTool(call llm.ToolCall) (answer string, def map[string]any, summary string) {
	switch call.Name {
	case "list_task_types":
		names := s.d.Registry.Names()
		sort.Strings(names)
		list := make([]map[string]any, 0, len(names))
		for _, n := range names {
			t, _ := s.d.Registry.Lookup(n)
			list = append(list, map[string]any{"type": n, "description": t.Description, "parameters": t.Parameters})
		}
		b, _ := json.Marshal(list)
		return string(b), nil, ""
	case "propose_workflow":
		var args struct {
			Definition map[string]any `json:"definition"`
			Summary    string         `json:"summary"`
		}
		if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil || args.Definition == nil {
			return `{"valid": false, "errors": ["the arguments are not {definition, summary} JSON"]}`, nil, ""
		}
		errs := dsl.Validate(roundTrip(args.Definition), s.d.Registry).Errors
		if len(errs) == 0 {
			return "", args.Definition, args.Summary
		}
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = fmt.Sprintf("%v: %s", e.Loc, e.Msg)
		}
		b, _ := json.Marshal(map[string]any{"valid": false, "errors": msgs})
		return string(b), nil, ""
	}
	return `{"error": "no such tool"}`, nil, ""
}

func trimmed(s string) string { return strings.TrimSpace(s) }
