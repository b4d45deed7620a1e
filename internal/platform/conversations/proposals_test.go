package conversations_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/agent/builtin"
	"github.com/loopwork/loopwork/internal/testkit"
)

// Requests the built-in agent understands, so that each one yields a proposal: new flows from its
// corpus, and edits of the vendor flow (extract, then post) from the phrases docs/agent.md lists.
const (
	vendorRequest    = "Extract the vendor and the amount, then post it to https://hooks.example.com/ap"
	translateRequest = "Translate the message into French, then send it to https://translate.example.com/out"
	alsoMail         = "also e-mail it to finance@example.com"
	postElsewhere    = "post it to https://other.example.com/ap instead"
)

// distinct fails the test when two bases give the same proposal for a request: then an offer could
// not tell which base the conversation started from, and the test would prove nothing.
func distinct(t *testing.T, request string, a, b builtin.Proposal) {
	t.Helper()
	if canonical(t, a.Definition) == canonical(t, b.Definition) {
		t.Fatalf("%q gives the same definition from either base: choose a request that tells them apart", request)
	}
}

// canonical is a JSON value as one string, whatever Go types it was built from, for comparing.
func canonical(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	_ = json.Unmarshal(raw, &out)
	raw, _ = json.Marshal(out)
	return string(raw)
}

// decoded is a definition as it reaches the agent after a trip through JSON (numbers as float64).
func decoded(t *testing.T, def map[string]any) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(canonical(t, def)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// flowWith creates a flow with the definition and starts a conversation on it, in phase build since the
// flow has tasks.
func flowWith(t *testing.T, c *testkit.Caller, def map[string]any) (flow, conv uuid.UUID) {
	t.Helper()
	raw, _ := json.Marshal(def)
	created, err := c.API.CreateFlowWithResponse(ctx, platformapi.FlowCreateRequest{DisplayName: "Edited", Definition: raw})
	testkit.Expect(t, created, err, http.StatusCreated)
	started, err := c.API.StartConversationWithResponse(ctx, platformapi.ConversationCreateRequest{FlowId: &created.JSON201.Id})
	testkit.Expect(t, started, err, http.StatusCreated)
	got, err := c.API.GetConversationWithResponse(ctx, started.JSON201.ConversationId)
	testkit.Expect(t, got, err, http.StatusOK)
	if got.JSON200.Phase != "build" {
		t.Fatalf("a conversation on a flow with tasks starts in %s", got.JSON200.Phase)
	}
	return created.JSON201.Id, started.JSON201.ConversationId
}

// latest is the flow's latest saved version and its definition, as stored.
func latest(t *testing.T, c *testkit.Caller, flow uuid.UUID) (int, map[string]any) {
	t.Helper()
	got, err := c.API.GetFlowWithResponse(ctx, flow, nil)
	testkit.Expect(t, got, err, http.StatusOK)
	return got.JSON200.Version, got.JSON200.Definition
}

// versions counts the flow's saved versions.
func versions(t *testing.T, c *testkit.Caller, flow uuid.UUID) int {
	t.Helper()
	list, err := c.API.ListFlowVersionsWithResponse(ctx, flow, nil)
	testkit.Expect(t, list, err, http.StatusOK)
	return len(*list.JSON200)
}

// expectProposal checks that a reply offers exactly what the built-in agent makes of the request, on
// the given saved version, with its changes passed through (absent when it reports none), and returns
// the offered definition; a request the agent did not understand must be answered with its plan
// instead, and nothing offered.
func expectProposal(t *testing.T, events []event, want builtin.Proposal, version int) map[string]any {
	t.Helper()
	if !want.Understood {
		for _, e := range events {
			if e.Name == "workflow_update" {
				t.Fatalf("a proposal for a request the agent did not understand: %s", names(events))
			}
		}
		if last := events[len(events)-2].Data["body"].(map[string]any); last["content"] != want.Plan {
			t.Fatalf("answered %v, want the plan %q", last, want.Plan)
		}
		return nil
	}
	update := find(t, events, "workflow_update", "")
	if canonical(t, update["definition"]) != canonical(t, want.Definition) {
		t.Fatalf("offered %s\nwant %s", canonical(t, update["definition"]), canonical(t, want.Definition))
	}
	if update["summary"] != want.Summary || update["flow_version"] != float64(version) {
		t.Fatalf("summary %q on version %v, want %q on %d", update["summary"], update["flow_version"], want.Summary, version)
	}
	changes, has := update["changes"]
	if len(want.Changes) == 0 && has {
		t.Fatalf("changes %v where the agent reported none", changes)
	}
	if len(want.Changes) > 0 && canonical(t, changes) != canonical(t, want.Changes) {
		t.Fatalf("changes %s, want %s", canonical(t, changes), canonical(t, want.Changes))
	}
	offered, _ := update["definition"].(map[string]any)
	return offered
}
