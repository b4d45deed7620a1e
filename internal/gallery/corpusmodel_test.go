package gallery_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestAgentCorpusWithModel runs the corpus's requests through the direct builder on the configured
// model (LOOPWORK_MODELS and LOOPWORK_AGENT_MODEL, as the server reads them), edits with the built-in
// agent's proposal before the edit as workflow_state, and reports how many proposals have the task types
// the corpus expects. It is skipped without a model; it fails only when the server fails, since a
// model's score is a measurement, not a regression.
func TestAgentCorpusWithModel(t *testing.T) {
	models, agent := os.Getenv("LOOPWORK_MODELS"), os.Getenv("LOOPWORK_AGENT_MODEL")
	if agent == "" {
		t.Skip("LOOPWORK_AGENT_MODEL is not set: the corpus runs against the built-in agent only")
	}
	raw, err := os.ReadFile(corpusFile)
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		corpusCase
		Types []string `json:"types"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) { c.Models, c.AgentModel = models, agent }))
	owner := env.User(t, env.Org(t), auth.RoleAppUser)
	right, asked := 0, 0
	for _, c := range cases {
		if c.Asks {
			continue
		}
		asked++
		body := platformapi.DirectAgentRequest{Prompt: c.Request}
		// An edit or a rejection asks the model to change what the built-in agent proposed before it.
		if n := len(c.Edits); n > 0 || c.Reject != "" {
			base := c.corpusCase
			if c.Reject != "" {
				base.Reject, body.Prompt = "", c.Reject
			} else {
				base.Edits, body.Prompt = c.Edits[:n-1], c.Edits[n-1]
			}
			body.WorkflowState = state(base.proposal().Definition)
		}
		res, err := owner.API.RunDirectAgentWithResponse(ctx, body)
		testkit.Expect(t, res, err, http.StatusOK)
		var types []string
		for _, ch := range res.JSON200.Chunks {
			ret, _ := ch.Content.(map[string]any)
			def, _ := ret["definition"].(map[string]any)
			if ch.Type != platformapi.AgentResponseChunkTypeToolReturn || def == nil {
				continue
			}
			types = types[:0]
			tasks, _ := def["tasks"].([]any)
			for _, task := range tasks {
				m, _ := task.(map[string]any)
				typ, _ := m["type"].(string)
				types = append(types, typ)
			}
		}
		if strings.Join(types, ",") == strings.Join(c.Types, ",") {
			right++
		} else {
			t.Logf("%q %q: types %v, the corpus expects %v", c.Request, c.Edits, types, c.Types)
		}
	}
	t.Logf("model %s: %d of %d proposals have the expected task types", agent, right, asked)
}

// state is a definition as the direct agent's workflow_state: tasks by id with their dependencies.
func state(def map[string]any) *platformapi.WorkflowState {
	var d struct {
		Tasks []struct {
			Name       string         `json:"name"`
			Type       string         `json:"type"`
			Parameters map[string]any `json:"parameters"`
		} `json:"tasks"`
		Edges []struct{ Source, Target string } `json:"edges"`
	}
	raw, _ := json.Marshal(def)
	_ = json.Unmarshal(raw, &d)
	out := &platformapi.WorkflowState{}
	for _, task := range d.Tasks {
		var deps []string
		for _, e := range d.Edges {
			if e.Target == task.Name {
				deps = append(deps, e.Source)
			}
		}
		out.Tasks = append(out.Tasks, platformapi.WorkflowStateTask{Id: task.Name, Type: task.Type, Parameters: task.Parameters, Dependencies: &deps})
	}
	return out
}
