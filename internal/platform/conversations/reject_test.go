package conversations_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/agent/builtin"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

func reject(def map[string]any, reason string) map[string]any {
	m := action("reject_workflow", def)
	if reason != "" {
		m["reason"] = reason
	}
	return m
}

// TestRejectRevises: reject_workflow with a reason stores the reason as the user's message and offers
// what the built-in agent's Revise makes of the definition the action carries (the one the user saw,
// edited or not); without a reason the agent asks what to change, and the next message revises the
// rejected definition. Nothing is saved on the way; a reason of the wrong length answers 422.
func TestRejectRevises(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t, testkit.WithoutWorkers())
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	flow, conv := flowWith(t, c, builtin.Propose(vendorRequest).Definition)
	_, saved := latest(t, c, flow)
	events, _, _ := chat(t, env, c, conv, text(alsoMail))
	proposed := expectProposal(t, events, builtin.Edit(saved, alsoMail), 1)

	// The user changed the definition before rejecting it: the revision starts from what they sent.
	seen := decoded(t, builtin.Edit(proposed, "rename notify to tell_finance").Definition)
	want := builtin.Revise(seen, postElsewhere)
	distinct(t, postElsewhere, want, builtin.Revise(proposed, postElsewhere))
	events, _, _ = chat(t, env, c, conv, reject(seen, postElsewhere))
	said := events[0].Data
	if events[0].Name != "message" || said["sender"] != "user" || said["body"].(map[string]any)["content"] != postElsewhere {
		t.Fatalf("the reason is not the user's first message: %s %v", names(events), said)
	}
	revised := expectProposal(t, events, want, 1)

	events, _, _ = chat(t, env, c, conv, reject(revised, ""))
	if names(events) != "message,done" || events[0].Data["sender"] != "Workflow Assistant" ||
		!strings.Contains(events[0].Data["body"].(map[string]any)["content"].(string), "what should change") {
		t.Fatalf("a rejection without a reason: %s %v", names(events), events[0].Data)
	}
	const answer = "rename tell_finance to mail_finance"
	want = builtin.Revise(revised, answer)
	distinct(t, answer, want, builtin.Edit(saved, answer))
	events, _, _ = chat(t, env, c, conv, text(answer))
	expectProposal(t, events, want, 1)
	if v, _ := latest(t, c, flow); v != 1 || versions(t, c, flow) != 1 {
		t.Fatalf("a rejection saved something: version %d, %d versions", v, versions(t, c, flow))
	}

	list, err := c.API.ListConversationMessagesWithResponse(ctx, conv, &platformapi.ListConversationMessagesParams{Limit: new(100)})
	testkit.Expect(t, list, err, http.StatusOK)
	var mine []string
	for _, m := range list.JSON200.Messages {
		if m.Sender == "user" {
			body, _ := m.Body.AsMessageBody()
			mine = append(mine, body.Content)
		}
	}
	if strings.Join(mine, "|") != alsoMail+"|"+postElsewhere+"|"+answer {
		t.Fatalf("the user's messages: %q", mine)
	}

	for _, reason := range []string{"", strings.Repeat("x", 32001)} {
		m := reject(revised, "")
		m["reason"] = reason
		if _, status, body := chat(t, env, c, conv, m); status != http.StatusUnprocessableEntity || !strings.Contains(string(body), `"reason"]`) {
			t.Fatalf("a reason of %d characters: %d %s", len(reason), status, body)
		}
	}
}
