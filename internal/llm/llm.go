// Package llm is loopwork's interface to language models: a Provider streams a chat completion (text
// as it comes, tool calls once complete, usage at the end). OpenAI speaks the OpenAI chat completions
// protocol, so OpenAI, vLLM, Ollama and LocalAI all serve it.
package llm

import (
	"context"
	"errors"
)

// Message is one message of a chat.
type Message struct {
	Role       string // system, user, assistant or tool
	Content    string
	ToolCalls  []ToolCall // an assistant's calls
	ToolCallID string     // a tool message answers this call
}

// Tool is a function the model may call.
type Tool struct {
	Name, Description string
	Parameters        map[string]any // a JSON schema
}

// ToolCall is a complete call of a tool by the model.
type ToolCall struct {
	ID, Name, Arguments string
}

// Request is one completion to make.
type Request struct {
	Model       string
	Messages    []Message
	Tools       []Tool
	Temperature *float64
	MaxTokens   int
	// Schema, when set, asks for a JSON answer that follows it.
	Schema map[string]any
}

// Usage counts tokens.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// Response is a finished completion.
type Response struct {
	Model     string
	Text      string
	ToolCalls []ToolCall
	Usage     Usage
}

// Delta is what Stream hands on as the completion arrives: text, or a tool call once it is complete.
type Delta struct {
	Text     string
	ToolCall *ToolCall
}

// Provider makes completions.
type Provider interface {
	// Stream calls onDelta as the answer arrives (an error from it stops the completion) and answers
	// the whole completion. Cancelling ctx stops it.
	Stream(ctx context.Context, r Request, onDelta func(Delta) error) (Response, error)
}

// ErrUpstream marks a model service that failed: unreachable, an error answer, a stream cut short.
var ErrUpstream = errors.New("the language model service failed")
