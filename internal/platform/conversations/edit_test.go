package conversations_test

import (
	"net/http"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/agent/builtin"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestBuildEditsWhatTheUserSees: in build phase a message edits the flow's saved definition, then,
// while that proposal awaits an answer (a message the agent cannot apply leaves it so), the proposal
// itself (the user refines what they see); each offer is what the built-in agent's Edit makes of that
// base, its changes passed through, on the saved version it rests on. Nothing is saved until accept_workflow; after it the next edit starts from the
// new version. "describe" still describes the saved flow.
func TestBuildEditsWhatTheUserSees(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	flow, conv := flowWith(t, c, builtin.Propose(vendorRequest).Definition)
	_, saved := latest(t, c, flow)

	events, _, _ := chat(t, env, c, conv, text(alsoMail))
	want := builtin.Edit(saved, alsoMail)
	if len(want.Changes) == 0 {
		t.Fatalf("%q changes nothing: the test could not see changes passed through", alsoMail)
	}
	first := expectProposal(t, events, want, 1)
	// A message the agent cannot apply is answered with its question; the proposal stays pending.
	const vague = "make it nicer"
	if want = builtin.Edit(first, vague); want.Understood {
		t.Fatalf("%q is understood: choose a message the agent cannot apply", vague)
	}
	events, _, _ = chat(t, env, c, conv, text(vague))
	expectProposal(t, events, want, 1)
	const rename = "rename notify to notify_finance"
	want = builtin.Edit(first, rename)
	distinct(t, rename, want, builtin.Edit(saved, rename))
	events, _, _ = chat(t, env, c, conv, text(rename))
	second := expectProposal(t, events, want, 1)
	if v, _ := latest(t, c, flow); v != 1 || versions(t, c, flow) != 1 {
		t.Fatalf("proposals saved something: version %d, %d versions", v, versions(t, c, flow))
	}

	accept := find(t, events, "action", "confirmation_request")["data"].(map[string]any)["accept"]
	events, _, _ = chat(t, env, c, conv, accept)
	if find(t, events, "action", "run_workflow_request") == nil || versions(t, c, flow) != 2 {
		t.Fatalf("accept: %s, %d versions", names(events), versions(t, c, flow))
	}
	v, next := latest(t, c, flow)
	if v != 2 || canonical(t, next) != canonical(t, second) {
		t.Fatalf("saved version %d: %s", v, canonical(t, next))
	}
	want = builtin.Edit(next, postElsewhere)
	distinct(t, postElsewhere, want, builtin.Edit(saved, postElsewhere))
	events, _, _ = chat(t, env, c, conv, text(postElsewhere))
	expectProposal(t, events, want, 2)

	events, _, _ = chat(t, env, c, conv, text("describe the workflow"))
	if names(events) != "message,status,message,done" || events[2].Data["body"].(map[string]any)["content"] != builtin.Summarize(next) {
		t.Fatalf("describe: %s %v", names(events), events[2].Data)
	}
}

// TestDirectBuilderEditsTheState: the direct builder edits the workflow state it is given, as the
// built-in agent's Edit does (task ids as names, dependencies as edges), and its proposal's tool_return
// carries the changes; without a state it proposes a new workflow, its changes null.
func TestDirectBuilderEditsTheState(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	state := platformapi.WorkflowState{Tasks: []platformapi.WorkflowStateTask{
		{Id: "fetch", Type: "http_request", Parameters: map[string]any{"url": "https://example.com/a"}},
		{Id: "mail", Type: "email", Parameters: map[string]any{"to": []any{"a@example.com"}, "subject": "s", "body": "b"},
			Dependencies: &[]string{"fetch"}}}}
	current := decoded(t, map[string]any{"version": 1, "edges": []any{map[string]any{"source": "fetch", "target": "mail"}},
		"tasks": []any{
			map[string]any{"name": "fetch", "type": "http_request", "parameters": state.Tasks[0].Parameters},
			map[string]any{"name": "mail", "type": "email", "parameters": state.Tasks[1].Parameters}}})

	const rename = "rename mail to notify_team"
	edited := builtin.Edit(current, rename)
	if len(edited.Changes) == 0 {
		t.Fatalf("%q changes nothing in the state", rename)
	}
	for _, tc := range []struct {
		state  *platformapi.WorkflowState
		prompt string
		want   builtin.Proposal
	}{
		{&state, rename, edited},
		{nil, translateRequest, builtin.Propose(translateRequest)},
	} {
		res, err := c.API.RunDirectAgentWithResponse(ctx, platformapi.DirectAgentRequest{Prompt: tc.prompt, WorkflowState: tc.state})
		testkit.Expect(t, res, err, http.StatusOK)
		var proposal map[string]any
		for _, ch := range res.JSON200.Chunks {
			if m, ok := ch.Content.(map[string]any); ok && ch.Type == platformapi.AgentResponseChunkTypeToolReturn && m["definition"] != nil {
				proposal = m
			}
		}
		changes, has := proposal["changes"]
		if proposal == nil || !has || canonical(t, proposal["definition"]) != canonical(t, tc.want.Definition) ||
			canonical(t, changes) != canonical(t, tc.want.Changes) {
			t.Fatalf("state %v: %s", tc.state != nil, res.Body)
		}
		if last := res.JSON200.Chunks[len(res.JSON200.Chunks)-1]; last.Content != tc.want.Summary {
			t.Fatalf("the last chunk is not the summary: %v", last.Content)
		}
	}
}
