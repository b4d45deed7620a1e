package conversations

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/agent/builtin"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/dsl"
)

type taskError struct {
	Task      string          `db:"task_name"`
	Idx       int             `db:"task_execution_idx"`
	Error     json.RawMessage `db:"error"`
	Execution uuid.UUID       `db:"flow_execution_id"`
}

// failures reads the task errors of the flow's latest failed execution (none when it has none).
func (s *Service) failures(ctx context.Context, conv row) ([]taskError, error) {
	var exec uuid.UUID
	err := s.d.DB.GetContext(ctx, &exec, `SELECT id FROM flow_executions WHERE organization_id = $1 AND flow_id = $2
		AND status = 'failed' ORDER BY created_at DESC, id LIMIT 1`, conv.Org, *conv.FlowID)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []taskError
	err = s.d.DB.SelectContext(ctx, &out, `SELECT DISTINCT ON (task_name) task_name, task_execution_idx,
		coalesce(error, '{}') AS error, flow_execution_id FROM task_executions WHERE flow_execution_id = $1 AND status = 'failed'
		ORDER BY task_name, task_execution_idx DESC`, exec)
	return out, err
}

func message(raw json.RawMessage) (string, string) {
	var e struct{ Type, Message string }
	_ = json.Unmarshal(raw, &e)
	if e.Message == "" {
		e.Message = string(raw)
	}
	return e.Message, e.Type
}

// suggest is the offline agent's advice for an error, from its words.
func suggest(msg string) string {
	l := strings.ToLower(msg)
	switch {
	case strings.Contains(l, "timeout") || strings.Contains(l, "within") || strings.Contains(l, "deadline"):
		return "Give the task more time (a larger `timeout_seconds`) and a retry."
	case strings.Contains(l, "credential"):
		return "Check `credential_id`: it must be a credential of the organization that can authenticate this task."
	case strings.Contains(l, "refused") || strings.Contains(l, "connection") || strings.Contains(l, " 5") || strings.Contains(l, "unavailable"):
		return "The target did not answer: check the URL or host, and retry the task a few times with a pause (`retry`)."
	case strings.Contains(l, "jq") || strings.Contains(l, "expression"):
		return "Fix the task's expression so that it works on the task's input."
	}
	return "Retry the task (`retry.max_attempts` 3 with a pause) and check its parameters."
}

// onErrors summarises the latest failed execution and the definition's own problems.
func (s *Service) onErrors(ctx context.Context, e *emitter) error {
	if err := e.status(ctx, "reading_errors", "Reading the latest failed execution"); err != nil {
		return err
	}
	fails, err := s.failures(ctx, e.conv)
	if err != nil {
		return err
	}
	_, def, err := s.d.Flows.Latest(ctx, *e.conv.FlowID)
	if err != nil {
		return err
	}
	flowErrors := []any{}
	for _, v := range dsl.ValidateJSON(def, s.d.Registry).Errors {
		flowErrors = append(flowErrors, map[string]any{"error_message": v.Msg})
	}
	if len(fails) == 0 && len(flowErrors) == 0 {
		return e.say(ctx, senderResolver, "The flow has no failed execution and its definition is valid: there is nothing to fix.")
	}
	taskErrors := make([]any, len(fails))
	for i, f := range fails {
		msg, typ := message(f.Error)
		te := map[string]any{"task_name": f.Task, "error_message": msg, "flow_execution_id": f.Execution,
			"task_execution_idx": f.Idx, "suggested_fix": suggest(msg)}
		if typ != "" {
			te["error_type"] = typ
		}
		taskErrors[i] = te
	}
	return e.action(ctx, senderResolver, "error_summary", map[string]any{"task_errors": taskErrors, "flow_errors": flowErrors})
}

// onResolve proposes the latest definition with the failed tasks made sturdier: a retry with a pause,
// and more time where they ran out of it.
func (s *Service) onResolve(ctx context.Context, e *emitter) error {
	fails, err := s.failures(ctx, e.conv)
	if err != nil {
		return err
	}
	if len(fails) == 0 {
		return e.say(ctx, senderResolver, "The flow has no failed execution to resolve.")
	}
	version, raw, err := s.d.Flows.Latest(ctx, *e.conv.FlowID)
	if err != nil {
		return err
	}
	var def map[string]any
	if err := json.Unmarshal(raw, &def); err != nil {
		return err
	}
	failed := map[string]string{}
	for _, f := range fails {
		failed[f.Task], _ = message(f.Error)
	}
	var changes []string
	tasks, _ := def["tasks"].([]any)
	for _, t := range tasks {
		t, _ := t.(map[string]any)
		name, _ := t["name"].(string)
		msg, ok := failed[name]
		if !ok {
			continue
		}
		t["retry"] = map[string]any{"max_attempts": 3, "backoff_seconds": 5}
		change := fmt.Sprintf("**%s** retries up to 3 times, 5 seconds apart", name)
		if l := strings.ToLower(msg); strings.Contains(l, "timeout") || strings.Contains(l, "within") {
			secs := 60.0
			if cur, ok := t["timeout_seconds"].(float64); ok {
				secs = cur * 2
			}
			t["timeout_seconds"] = secs
			change += fmt.Sprintf(" and may take %v seconds", secs)
		}
		changes = append(changes, change)
	}
	summary := "Proposed fixes:\n\n- " + strings.Join(changes, "\n- ")
	return s.propose(ctx, e, version, builtin.Proposal{Definition: def, Summary: summary})
}
