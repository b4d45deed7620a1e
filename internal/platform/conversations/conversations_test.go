package conversations_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestConversationLifecycle: a conversation on a new draft flow plans (confirmation asked), moves to
// build on confirm_plan with a proposal that validates, saves the accepted definition as a new flow
// version, and lists every message but the transient ones, oldest first; phase rules answer 409 naming
// the phase, an invalid accepted definition 422; the conversation is its user's alone.
func TestConversationLifecycle(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	c := env.User(t, org, auth.RoleAppUser)
	colleague := env.User(t, org, auth.RoleOrgAdmin)
	stranger := env.User(t, env.Org(t), auth.RoleOrgAdmin)

	started, err := c.API.StartConversationWithResponse(ctx, platformapi.ConversationCreateRequest{Title: new("Invoices")})
	testkit.Expect(t, started, err, http.StatusCreated)
	conv, flow := started.JSON201.ConversationId, *started.JSON201.FlowId
	got, err := c.API.GetConversationWithResponse(ctx, conv)
	testkit.Expect(t, got, err, http.StatusOK)
	if got.JSON200.Phase != "plan" || got.JSON200.UserId != c.UserID.String() || *got.JSON200.FlowId != flow || *got.JSON200.Title != "Invoices" {
		t.Fatalf("conversation %s", got.Body)
	}
	for _, other := range []*testkit.Caller{colleague, stranger} {
		hidden, err := other.API.GetConversationWithResponse(ctx, conv)
		testkit.Expect(t, hidden, err, http.StatusNotFound)
		missing, err := other.API.GetConversationWithResponse(ctx, uuid.New())
		testkit.SameAsMissing(t, hidden, missing)
		if _, status, _ := chat(t, env, other, conv, text("hello")); status != http.StatusNotFound {
			t.Fatalf("another user's message answered %d", status)
		}
		del, err := other.API.DeleteConversationWithResponse(ctx, conv)
		testkit.Expect(t, del, err, http.StatusNotFound)
	}

	request := "When an invoice e-mail arrives, extract the total, send it to review if below 0.9 confidence, then post it to https://erp.example.com/invoices"
	events, _, _ := chat(t, env, c, conv, text(request))
	stored := storedOf(events)
	if names(events) != "message,status,message,action,done" || events[len(events)-1].Data["phase"] != "plan" {
		t.Fatalf("plan: %s", names(events))
	}
	if find(t, events, "message", "")["content"] != request {
		t.Fatal("the user's message is not echoed first")
	}
	if _, status, body := chat(t, env, c, conv, action("resolve_errors", nil)); status != http.StatusConflict || !strings.Contains(string(body), "phase plan") {
		t.Fatalf("resolve_errors in plan: %d %s", status, body)
	}

	events, _, _ = chat(t, env, c, conv, action("confirm_plan", nil))
	stored += storedOf(events)
	if !strings.HasPrefix(names(events), "transition_to_build,status,workflow_update,action") || events[len(events)-1].Data["phase"] != "build" {
		t.Fatalf("build: %s", names(events))
	}
	update := find(t, events, "workflow_update", "")
	if update["flow_id"] != flow.String() || update["flow_version"] != float64(1) || len(update["validation_errors"].([]any)) != 0 {
		t.Fatalf("proposal %v", update)
	}
	accept := find(t, events, "action", "confirmation_request")["data"].(map[string]any)["accept"]
	if _, status, body := chat(t, env, c, conv, action("confirm_plan", nil)); status != http.StatusConflict || !strings.Contains(string(body), "phase build") {
		t.Fatalf("confirm_plan in build: %d %s", status, body)
	}
	bad := map[string]any{"version": 1, "tasks": []any{map[string]any{"name": "x", "type": "nope"}}, "edges": []any{}}
	if _, status, _ := chat(t, env, c, conv, action("accept_workflow", bad)); status != http.StatusUnprocessableEntity {
		t.Fatalf("an invalid definition accepted: %d", status)
	}
	events, _, _ = chat(t, env, c, conv, accept)
	stored += storedOf(events)
	if names(events) != "status,message,action,done" || find(t, events, "action", "run_workflow_request")["data"].(map[string]any)["flow_id"] != flow.String() {
		t.Fatalf("accept: %s", names(events))
	}
	saved, err := c.API.GetFlowWithResponse(ctx, flow, nil)
	testkit.Expect(t, saved, err, http.StatusOK)
	if !strings.Contains(string(saved.Body), `"check_confidence"`) {
		t.Fatalf("the flow was not saved: %s", saved.Body)
	}

	list, err := c.API.ListConversationMessagesWithResponse(ctx, conv, &platformapi.ListConversationMessagesParams{Limit: new(100)})
	testkit.Expect(t, list, err, http.StatusOK)
	for _, m := range list.JSON200.Messages {
		raw, _ := json.Marshal(m.Body)
		if strings.Contains(string(raw), `"type":"status"`) {
			t.Fatal("a status message was stored")
		}
	}
	if list.JSON200.Total != stored || list.JSON200.Messages[0].Sender != "user" {
		t.Fatalf("%d messages: %s", list.JSON200.Total, list.Body)
	}
	p2, err := c.API.ListConversationMessagesWithResponse(ctx, conv, &platformapi.ListConversationMessagesParams{Page: new(2), Limit: new(5)})
	testkit.Expect(t, p2, err, http.StatusOK)
	if len(p2.JSON200.Messages) != stored-5 || p2.JSON200.Messages[0].Id != list.JSON200.Messages[5].Id {
		t.Fatalf("page 2: %s", p2.Body)
	}

	for _, phase := range []platformapi.ConversationPhase{"plan", "plan", "build"} {
		res, err := c.API.UpdateConversationPhaseWithResponse(ctx, conv, platformapi.ConversationUpdateRequest{Phase: phase})
		testkit.Expect(t, res, err, http.StatusOK)
		if res.JSON200.Phase != phase {
			t.Fatalf("phase %s", res.Body)
		}
	}
	mine, err := c.API.ListConversationsWithResponse(ctx, nil)
	testkit.Expect(t, mine, err, http.StatusOK)
	theirs, err := colleague.API.ListConversationsWithResponse(ctx, nil)
	testkit.Expect(t, theirs, err, http.StatusOK)
	if mine.JSON200.Total != 1 || theirs.JSON200.Total != 0 {
		t.Fatalf("lists %s / %s", mine.Body, theirs.Body)
	}
	del, err := c.API.DeleteConversationWithResponse(ctx, conv)
	testkit.Expect(t, del, err, http.StatusNoContent)
	gone, err := c.API.ListConversationMessagesWithResponse(ctx, conv, nil)
	testkit.Expect(t, gone, err, http.StatusNotFound)
	kept, err := c.API.GetFlowWithResponse(ctx, flow, nil)
	testkit.Expect(t, kept, err, http.StatusOK)
}
