package taskmarks_test

import (
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// names shows listed tags as "task/tag/type".
func names(l *platformapi.FlowTaskTagListResponse) []string {
	out := []string{}
	for _, tg := range l.Tags {
		out = append(out, tg.TaskName+"/"+tg.Tag+"/"+tg.TagType)
	}
	return out
}

// TestListTags: oldest first in request order, pages with totals, exact filters, only the executions
// the caller may see, deleted executions left out unless named.
func TestListTags(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org, otherOrg := env.Org(t), env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	admin := env.User(t, org, auth.RoleOrgAdmin)
	colleague := env.User(t, org, auth.RoleAppUser)
	outsider := env.User(t, otherOrg, auth.RoleOrgAdmin)
	first := execution(t, env, org, flowOpts{})
	second := execution(t, env, org, flowOpts{})
	private := execution(t, env, org, flowOpts{creator: &colleague.UserID, visibility: "private"})
	foreign := execution(t, env, otherOrg, flowOpts{visibility: "public"})

	patch(t, user, tagOp(add, first, "b", "review", "label", ""), tagOp(add, first, "a", "review", "label", ""),
		tagOp(add, second, "a", "ok", "quality", ""), tagOp(add, second, "a", "review", "label", `{"by": "x"}`))
	patch(t, user, tagOp(add, first, "c", "Review", "label", ""), tagOp(remove, first, "b", "review", "label", ""))
	patch(t, colleague, tagOp(add, private, "a", "review", "label", ""))
	patch(t, outsider, tagOp(add, foreign, "a", "review", "label", ""))

	wantStatuses(t, "all", names(listTags(t, user, platformapi.ListTaskTagsParams{})),
		"a/review/label", "a/ok/quality", "a/review/label", "c/Review/label")
	wantStatuses(t, "an admin sees private flows' executions", names(listTags(t, admin, platformapi.ListTaskTagsParams{})),
		"a/review/label", "a/ok/quality", "a/review/label", "c/Review/label", "a/review/label")
	wantStatuses(t, "another organization", names(listTags(t, outsider, platformapi.ListTaskTagsParams{})), "a/review/label")

	p1 := listTags(t, user, platformapi.ListTaskTagsParams{Limit: new(3)})
	p2 := listTags(t, user, platformapi.ListTaskTagsParams{Limit: new(3), Page: new(2)})
	p3 := listTags(t, user, platformapi.ListTaskTagsParams{Limit: new(3), Page: new(3)})
	if p1.Total != 4 || p2.Total != 4 || p3.Total != 4 || len(p1.Tags) != 3 || len(p2.Tags) != 1 || len(p3.Tags) != 0 ||
		p2.Page != 2 || p2.Limit != 3 || p2.Tags[0].Tag != "Review" {
		t.Fatalf("pages: %+v / %+v / %+v", p1, p2, p3)
	}
	if d := listTags(t, user, platformapi.ListTaskTagsParams{}); d.Page != 1 || d.Limit != 20 {
		t.Fatalf("defaults page %d limit %d, want 1 and 20", d.Page, d.Limit)
	}

	for what, c := range map[string]struct {
		p    platformapi.ListTaskTagsParams
		want []string
	}{
		"tag (case-sensitive)":   {platformapi.ListTaskTagsParams{Tag: new("review")}, []string{"a/review/label", "a/review/label"}},
		"tag type":               {platformapi.ListTaskTagsParams{TagType: new("quality")}, []string{"a/ok/quality"}},
		"task name":              {platformapi.ListTaskTagsParams{TaskName: new("c")}, []string{"c/Review/label"}},
		"execution":              {platformapi.ListTaskTagsParams{FlowExecutionId: &second}, []string{"a/ok/quality", "a/review/label"}},
		"execution and tag":      {platformapi.ListTaskTagsParams{FlowExecutionId: &second, Tag: new("review")}, []string{"a/review/label"}},
		"a hidden execution":     {platformapi.ListTaskTagsParams{FlowExecutionId: &private}, []string{}},
		"another organization's": {platformapi.ListTaskTagsParams{FlowExecutionId: &foreign}, []string{}},
		"nothing":                {platformapi.ListTaskTagsParams{Tag: new("none")}, []string{}},
	} {
		got := listTags(t, user, c.p)
		wantStatuses(t, what, names(got), c.want...)
		if got.Total != len(c.want) {
			t.Fatalf("%s: total %d, want %d", what, got.Total, len(c.want))
		}
	}

	// The listed tag carries who added it and when.
	tg := listTags(t, user, platformapi.ListTaskTagsParams{TagType: new("quality")}).Tags[0]
	if tg.Status == nil || *tg.Status != platformapi.FlowTaskTagAPIStatusActive || tg.OrganizationId != org ||
		tg.ModifiedBy == nil || *tg.ModifiedBy != user.UserID.String() || tg.CreatedAt == nil || tg.UpdatedAt == nil {
		t.Fatalf("listed tag %+v", tg)
	}

	// A deleted execution's tags leave the organization-wide list and stay readable by naming it.
	deleteExecution(t, env, second)
	wantStatuses(t, "after delete", names(listTags(t, user, platformapi.ListTaskTagsParams{})), "a/review/label", "c/Review/label")
	wantStatuses(t, "the deleted execution", names(listTags(t, user, platformapi.ListTaskTagsParams{FlowExecutionId: &second})),
		"a/ok/quality", "a/review/label")
}
