package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// OpenAI is a Provider over an OpenAI-compatible chat completions endpoint.
type OpenAI struct {
	client openai.Client
}

// NewOpenAI talks to baseURL (for example https://api.openai.com/v1) with key. The SDK's own retries
// are off: the caller (a task's retry policy, the user of a chat) decides whether to try again.
func NewOpenAI(baseURL, key string, hc *http.Client) *OpenAI {
	opts := []option.RequestOption{option.WithBaseURL(baseURL), option.WithAPIKey(key), option.WithMaxRetries(0),
		option.WithRequestTimeout(10 * time.Minute)}
	if hc != nil {
		opts = append(opts, option.WithHTTPClient(hc))
	}
	return &OpenAI{client: openai.NewClient(opts...)}
}

// Stream makes one streamed completion and accumulates it.
func (o *OpenAI) Stream(ctx context.Context, r Request, onDelta func(Delta) error) (Response, error) {
	params := openai.ChatCompletionNewParams{Model: r.Model, Messages: messages(r.Messages),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}
	for _, t := range r.Tools {
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: t.Name, Description: openai.String(t.Description), Parameters: shared.FunctionParameters(t.Parameters)}))
	}
	if r.Temperature != nil {
		params.Temperature = openai.Float(*r.Temperature)
	}
	if r.MaxTokens > 0 {
		params.MaxCompletionTokens = openai.Int(int64(r.MaxTokens))
	}
	if r.Schema != nil {
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "output", Schema: r.Schema}}}
	}
	stream := o.client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	var acc openai.ChatCompletionAccumulator
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		if len(chunk.Choices) > 0 && chunk.Choices[0].Delta.Content != "" {
			if err := onDelta(Delta{Text: chunk.Choices[0].Delta.Content}); err != nil {
				return Response{}, err
			}
		}
		if tc, ok := acc.JustFinishedToolCall(); ok {
			if err := onDelta(Delta{ToolCall: &ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}}); err != nil {
				return Response{}, err
			}
		}
	}
	if err := stream.Err(); err != nil {
		if ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		return Response{}, fmt.Errorf("%w: %v", ErrUpstream, err)
	}
	if len(acc.Choices) == 0 || acc.Choices[0].FinishReason == "" {
		return Response{}, fmt.Errorf("%w: the answer stopped before the model finished it", ErrUpstream)
	}
	msg := acc.Choices[0].Message
	out := Response{Model: acc.Model, Text: msg.Content,
		Usage: Usage{InputTokens: int(acc.Usage.PromptTokens), OutputTokens: int(acc.Usage.CompletionTokens)}}
	for _, tc := range msg.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return out, nil
}

func messages(in []Message) []openai.ChatCompletionMessageParamUnion {
	out := make([]openai.ChatCompletionMessageParamUnion, 0, len(in))
	for _, m := range in {
		switch m.Role {
		case "system":
			out = append(out, openai.SystemMessage(m.Content))
		case "assistant":
			a := openai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" {
				a.Content.OfString = openai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{ID: tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments}}})
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case "tool":
			out = append(out, openai.ToolMessage(m.Content, m.ToolCallID))
		default:
			out = append(out, openai.UserMessage(m.Content))
		}
	}
	return out
}

// IsUpstream tells failures of the model service from the caller's own (a cancelled context).
func IsUpstream(err error) bool { return errors.Is(err, ErrUpstream) }
