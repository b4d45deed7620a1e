package executors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/loopwork/loopwork/internal/engine/tasks"
	"github.com/loopwork/loopwork/internal/llm"
)

// Models finds the provider of a model by name ("" for the default), with apiKey, when not empty,
// instead of the endpoint's own; false for a model the server does not have.
type Models func(name, apiKey string) (llm.Provider, string, bool)

// Usage records one model call of an attempt in the transaction that records its outcome, so it is
// recorded exactly when the attempt's outcome is.
type Usage func(ctx context.Context, tx *sqlx.Tx, in Input, model string, u llm.Usage) error

// LLM prompts a model with the task's prompt and system templates rendered on its input. With
// output_schema the answer must be JSON that follows the schema: it is parsed into `json`, and an
// answer that does not follow it fails the attempt (the task's retry applies). credential_id names an
// api_key credential whose key is used instead of the model endpoint's. The model's failures and
// timeouts are retried per the task's retry; a model the server does not have fails the task.
func LLM(q JQ, models Models, creds Credentials, usage Usage) Executor {
	return Func(func(ctx context.Context, in Input) (Result, error) {
		p := in.Task.Parameters
		prompt, err := render(ctx, q, p, "prompt", in)
		if err != nil {
			return Result{}, err
		}
		system, err := render(ctx, q, p, "system", in)
		if err != nil {
			return Result{}, err
		}
		key := ""
		if id, ok := p["credential_id"].(string); ok && id != "" {
			if key, err = apiKey(ctx, creds, in, id); err != nil {
				return Result{}, err
			}
		}
		name, _ := p["model"].(string)
		provider, model, ok := models(name, key)
		if !ok {
			return Result{}, Permanent(fmt.Errorf("model: the server has no model %q (GET /api/models lists them)", name))
		}
		req := llm.Request{Model: model, Messages: []llm.Message{{Role: "user", Content: prompt}}}
		if system != "" {
			req.Messages = append([]llm.Message{{Role: "system", Content: system}}, req.Messages...)
		}
		if t, ok := p["temperature"].(float64); ok {
			req.Temperature = &t
		}
		if n, ok := p["max_tokens"].(float64); ok {
			req.MaxTokens = int(n)
		}
		var schema *jsonschema.Schema
		if s, ok := p["output_schema"].(map[string]any); ok {
			req.Schema = s
			if schema, err = compileSchema(s); err != nil {
				return Result{}, Permanent(fmt.Errorf("output_schema: %w", err))
			}
		}
		res, err := provider.Stream(ctx, req, func(llm.Delta) error { return nil })
		if err != nil {
			return Result{}, err
		}
		out := map[string]any{"text": res.Text, "model": orName(res.Model, model),
			"usage": map[string]any{"input_tokens": res.Usage.InputTokens, "output_tokens": res.Usage.OutputTokens}}
		if schema != nil {
			var v any
			if err := json.Unmarshal([]byte(strings.TrimSpace(res.Text)), &v); err != nil {
				return Result{}, fmt.Errorf("the model's answer is not JSON: %.200s", res.Text)
			}
			if err := schema.Validate(v); err != nil {
				return Result{}, fmt.Errorf("the model's answer does not follow output_schema: %v", err)
			}
			out["json"] = v
		}
		return Result{Output: out, InTx: func(ctx context.Context, tx *sqlx.Tx) error {
			if usage == nil {
				return nil
			}
			return usage(ctx, tx, in, orName(res.Model, model), res.Usage)
		}}, nil
	})
}

func orName(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// apiKey opens an api_key credential of the organization.
func apiKey(ctx context.Context, creds Credentials, in Input, id string) (string, error) {
	cid, err := uuid.Parse(id)
	if err != nil || creds == nil {
		return "", Permanent(errors.New("credential_id: not a credential of this organization"))
	}
	c, err := creds(ctx, in.Org, cid)
	if errors.Is(err, ErrNoCredential) {
		return "", Permanent(fmt.Errorf("credential_id: %w", err))
	}
	if err != nil {
		return "", err
	}
	key, _ := c.Data["api_key"].(string)
	if key == "" {
		return "", Permanent(errors.New("credential_id: the credential has no api_key"))
	}
	return key, nil
}

// compileSchema compiles output_schema with a compiler that loads nothing from outside the document:
// a flow saved before references were checked must still not read the server's files or URLs.
func compileSchema(s map[string]any) (*jsonschema.Schema, error) { return tasks.CompileTenantSchema(s) }
