// Package llm is loopwork's interface to language models: a Provider streams a chat completion (text
// as it comes, tool calls once complete, usage at the end). OpenAI speaks the OpenAI chat completions
// protocol, so OpenAI, vLLM, Ollama and LocalAI all serve it.
//
// Builtin, the offline model loopwork-builtin, answers from a prompt's input and never with its
// instruction. The system message is all instruction. In the user message, JSON objects and arrays
// that start a line or follow a ':' or '=' (where `{{ . }}` renders an object input) are input: their
// scalar members are read as "key: value" labels, their strings' contents as text. Of the rest, leading
// paragraphs that end with ':', open with an instruction verb ("Extract", "Classify", "Summarise", "You
// are"), talk about JSON, confidence or "the following", or name two or more of the schema's fields
// or enum values are instruction, as is a last one-line paragraph such as "Summarise the above."; when
// no leading paragraph was, so is a first line that opens with a verb, or the head of the first line
// up to a ':' that reads as an instruction ("Vendor, total and date of: …") rather than a label. What
// remains is the input: a prompt with none of these is all input. It reads the first 64 KiB of the
// input (JSON is looked for in the first MiB of the prompt), so megabytes cost no more than that.
//
// Asked for JSON, it fills each property of the schema from the input only: the value after one of
// the property's labels (its name, snake_case or camelCase, and synonyms: vendor, supplier, from;
// total, amount due; invoice number, invoice no; …) and a separator (':', '=', '#', " - ", "is"), or
// else, for a property whose kind a pattern can tell (an e-mail address, phone number, URL, date, sum
// of money, invoice or order number, currency), the only such value in the input. An enum is the value
// whose words, or simple cues of common labels (bug, feature, question; positive, negative; urgent), the
// input has. Values are typed as the schema says; dates become YYYY-MM-DD for a property with `format:
// date` or named as a date. A property not found is null where the schema allows it, else its type's
// zero value. A "confidence" property is the mean, over the other properties, of 1 for a labelled
// value, 0.8 for the only value of its kind, 0.5 for a pick among several, 0 for none. Without a schema
// it answers with the input's first sentences when asked to summarise, else the input itself,
// shortened. It cannot translate, rewrite, reason, read a value without a label or a telling shape
// (a vendor named only in a letterhead), read negation or sarcasm, or read month names other than
// English ones.
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
