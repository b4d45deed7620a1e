package server

import (
	"context"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/llm"
)

// modelsOf finds the provider of a model by name: a configured endpoint's (the first configured one
// when no name is given), or the built-in offline model's (the default when none is configured).
// The endpoints are the operator's, not a tenant's, so they are reached without the SSRF guard.
func modelsOf(endpoints []config.ModelEndpoint) executors.Models {
	return func(name, apiKey string) (llm.Provider, string, bool) {
		if name == llm.BuiltinModel || name == "" && len(endpoints) == 0 {
			return llm.Builtin{}, llm.BuiltinModel, true
		}
		for _, e := range endpoints {
			if (name == "" || e.Model == name) && e.BaseURL != "" {
				key := e.APIKey
				if apiKey != "" {
					key = apiKey
				}
				return llm.NewOpenAI(e.BaseURL, key, nil), e.Model, true
			}
		}
		return nil, "", false
	}
}

// llmUsage records each model call of an llm task as one llm-call, with the model and its tokens.
func llmUsage(ctx context.Context, tx *sqlx.Tx, in executors.Input, model string, u llm.Usage) error {
	_, err := credits.Record(ctx, tx, credits.Usage{OrganizationID: in.Org, ProductID: credits.LLMCallProduct,
		FlowExecutionID: &in.Execution, Amount: 1, CreatedBy: "llm:" + in.Task.Name,
		Metadata: map[string]any{"model": model, "task": in.Task.Name, "input_tokens": u.InputTokens, "output_tokens": u.OutputTokens}})
	return err
}
