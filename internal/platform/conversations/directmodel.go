package conversations

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/llm"
)

// directWithModel runs one of the three agents on the configured model, its output as chunks: text
// as assistant chunks, the builder's tool calls and their answers as they happened.
func (s *Service) directWithModel(ctx context.Context, org uuid.UUID, kind platformapi.DirectAgentRequestAgentType, prompt string,
	state map[string]any) ([]platformapi.AgentResponseChunk, error) {
	var chunks []platformapi.AgentResponseChunk
	add := func(t platformapi.AgentResponseChunkType, content any) {
		chunks = append(chunks, platformapi.AgentResponseChunk{Type: t, Content: content})
	}
	call := func(msgs []llm.Message, tools []llm.Tool) (llm.Response, error) {
		res, err := s.d.Model.Stream(ctx, llm.Request{Model: s.d.ModelName, Messages: msgs, Tools: tools}, func(llm.Delta) error { return nil })
		if err != nil {
			return res, err
		}
		_, err = credits.Record(ctx, s.d.DB, credits.Usage{OrganizationID: org, ProductID: credits.LLMCallProduct, Amount: 1,
			CreatedBy: "agent", Metadata: map[string]any{"model": s.d.ModelName, "agent_type": string(kind),
				"input_tokens": res.Usage.InputTokens, "output_tokens": res.Usage.OutputTokens}})
		return res, err
	}
	stateJSON, _ := json.Marshal(state)
	switch kind {
	case platformapi.WORKFLOWPLANNER:
		res, err := call([]llm.Message{{Role: "system", Content: plannerPrompt}, {Role: "user", Content: prompt}}, nil)
		add(platformapi.AgentResponseChunkTypeAssistant, res.Text)
		return chunks, err
	case platformapi.WORKFLOWSUMMARIZER:
		res, err := call([]llm.Message{{Role: "system", Content: "Describe the given workflow in a few sentences of prose."},
			{Role: "user", Content: prompt + "\n\nThe workflow:\n" + string(stateJSON)}}, nil)
		add(platformapi.AgentResponseChunkTypeAssistant, res.Text)
		return chunks, err
	}
	msgs := []llm.Message{{Role: "system", Content: builderPrompt},
		{Role: "user", Content: "The current definition:\n" + string(stateJSON) + "\n\nRequest:\n" + prompt}}
	for round := 0; round < maxRounds; round++ {
		res, err := call(msgs, tools)
		if err != nil {
			return chunks, err
		}
		if res.Text != "" {
			add(platformapi.AgentResponseChunkTypeAssistant, res.Text)
		}
		if len(res.ToolCalls) == 0 {
			return chunks, nil
		}
		msgs = append(msgs, llm.Message{Role: "assistant", Content: res.Text, ToolCalls: res.ToolCalls})
		for _, tc := range res.ToolCalls {
			var args any
			_ = json.Unmarshal([]byte(tc.Arguments), &args)
			add(platformapi.AgentResponseChunkTypeToolCall, map[string]any{"name": tc.Name, "arguments": args})
			answer, def, summary := s.runTool(tc)
			if def != nil {
				add(platformapi.AgentResponseChunkTypeToolReturn, map[string]any{"valid": true, "definition": def})
				add(platformapi.AgentResponseChunkTypeAssistant, summary)
				return chunks, nil
			}
			var ret any
			_ = json.Unmarshal([]byte(answer), &ret)
			add(platformapi.AgentResponseChunkTypeToolReturn, ret)
			msgs = append(msgs, llm.Message{Role: "tool", ToolCallID: tc.ID, Content: answer})
		}
	}
	return chunks, fmt.Errorf("the model proposed no valid workflow in %d rounds", maxRounds)
}
