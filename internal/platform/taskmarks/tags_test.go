package taskmarks_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

const (
	add    = platformapi.Add
	remove = platformapi.Remove
)

func wantStatuses(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: %q, want %q", what, got, want)
	}
}

// TestTagTransitions walks the tag states one transition at a time: none → active (added), active →
// active (already_exists, same id), active → deleted (removed, who and when recorded), deleted → deleted
// (not_found), absent → absent (not_found), deleted → a new active tag (added, new id).
func TestTagTransitions(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	remover := env.User(t, org, auth.RoleOrgAdmin)
	exec := execution(t, env, org, flowOpts{})

	sts, first := patch(t, user, tagOp(add, exec, "extract", "needs-review", "label", ""))
	wantStatuses(t, "add", sts, "added")
	r := first[0]
	if r.TagId == nil || r.Operation != add || r.FlowExecutionId != exec || r.TaskName != "extract" || r.Tag != "needs-review" ||
		r.TagType != "label" || r.TagMetadata != nil {
		t.Fatalf("result %+v: want the operation echoed with the new tag's id", r)
	}
	id := *r.TagId

	sts, again := patch(t, user, tagOp(add, exec, "extract", "needs-review", "label", ""))
	wantStatuses(t, "add again", sts, "already_exists")
	if again[0].TagId == nil || *again[0].TagId != id {
		t.Fatalf("already_exists names %v, want the existing tag %s", again[0].TagId, id)
	}
	if a, d := tagRows(t, env, exec); a != 1 || d != 0 {
		t.Fatalf("rows active %d deleted %d, want 1 and 0", a, d)
	}

	sts, removed := patch(t, remover, tagOp(remove, exec, "extract", "needs-review", "label", ""))
	wantStatuses(t, "remove", sts, "removed")
	if removed[0].TagId == nil || *removed[0].TagId != id {
		t.Fatalf("removed names %v, want %s", removed[0].TagId, id)
	}
	var row struct {
		Status     string `db:"status"`
		ModifiedBy string `db:"modified_by"`
		Later      bool   `db:"later"`
	}
	if err := env.DB.Get(&row, `SELECT status, modified_by, updated_at > created_at AS later FROM flow_task_tags WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if row.Status != "deleted" || row.ModifiedBy != remover.UserID.String() || !row.Later {
		t.Fatalf("removed row %+v: want deleted by %s, updated after creation", row, remover.UserID)
	}
	if got := listTags(t, user, platformapi.ListTaskTagsParams{FlowExecutionId: &exec}); got.Total != 0 {
		t.Fatalf("a removed tag is listed: %+v", got)
	}

	sts, gone := patch(t, user, tagOp(remove, exec, "extract", "needs-review", "label", ""),
		tagOp(remove, exec, "extract", "never-added", "label", ""))
	wantStatuses(t, "remove a deleted and an absent tag", sts, "not_found", "not_found")
	if gone[0].TagId != nil || gone[1].TagId != nil {
		t.Fatalf("not_found names a tag: %+v", gone)
	}

	sts, back := patch(t, user, tagOp(add, exec, "extract", "needs-review", "label", ""))
	wantStatuses(t, "add after remove", sts, "added")
	if back[0].TagId == nil || *back[0].TagId == id {
		t.Fatalf("re-added tag has id %v, want a new one", back[0].TagId)
	}
	if a, d := tagRows(t, env, exec); a != 1 || d != 1 {
		t.Fatalf("rows active %d deleted %d, want 1 and 1", a, d)
	}

	// Items see what the earlier items of the batch did.
	sts, _ = patch(t, user, tagOp(add, exec, "check", "x", "label", ""), tagOp(add, exec, "check", "x", "label", ""),
		tagOp(remove, exec, "check", "x", "label", ""), tagOp(remove, exec, "check", "x", "label", ""))
	wantStatuses(t, "one batch", sts, "added", "already_exists", "removed", "not_found")
}

// TestMetadataIsPartOfTheKey: the same tag with other metadata is another tag; a remove with metadata
// removes only that one, a remove with null or without metadata removes every one.
func TestMetadataIsPartOfTheKey(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	exec := execution(t, env, org, flowOpts{})
	tag := func(op platformapi.TaskTagOperation, meta string) platformapi.PatchFlowTaskTagsRequestItem {
		return tagOp(op, exec, "extract", "score", "quality", meta)
	}

	sts, _ := patch(t, user, tag(add, `{"a": 1, "b": [true, null]}`), tag(add, `{"a": 2}`), tag(add, ""), tag(add, "null"),
		tag(add, `{"b":[true,null],"a":1.0}`), tag(add, `"text"`), tag(add, `9007199254740993`), tag(add, `9007199254740992`))
	wantStatuses(t, "adds", sts, "added", "added", "added", "already_exists", "already_exists", "added", "added", "added")
	if a, _ := tagRows(t, env, exec); a != 6 {
		t.Fatalf("%d active tags, want 6", a)
	}
	// Another task, tag or type is another key too; case matters.
	sts, _ = patch(t, user, tagOp(add, exec, "Extract", "score", "quality", ""), tagOp(add, exec, "extract", "Score", "quality", ""),
		tagOp(add, exec, "extract", "score", "Quality", ""))
	wantStatuses(t, "other keys", sts, "added", "added", "added")

	// The listed metadata are the stored JSON values, large integers exact (read from the body: the
	// generated client decodes numbers into float64).
	lres, err := user.API.ListTaskTagsWithResponse(ctx, &platformapi.ListTaskTagsParams{FlowExecutionId: &exec,
		TaskName: new("extract"), Tag: new("score"), TagType: new("quality")})
	testkit.Expect(t, lres, err, http.StatusOK)
	list := lres.JSON200
	var raw struct {
		Tags []struct {
			TagMetadata json.RawMessage `json:"tag_metadata"`
		} `json:"tags"`
	}
	if err := json.Unmarshal(lres.Body, &raw); err != nil {
		t.Fatal(err)
	}
	var metas []string
	for _, tg := range raw.Tags {
		metas = append(metas, string(tg.TagMetadata))
	}
	wantStatuses(t, "metadata", metas, `{"a":1,"b":[true,null]}`, `{"a":2}`, `null`, `"text"`, `9007199254740993`, `9007199254740992`)

	sts, res := patch(t, user, tag(remove, `{"a": 2}`), tag(remove, `{"a": 3}`))
	wantStatuses(t, "remove one", sts, "removed", "not_found")
	if !reflect.DeepEqual(res[0].TagMetadata, map[string]any{"a": float64(2)}) {
		t.Fatalf("result metadata %s, want the metadata as sent", res[0].TagMetadata)
	}
	if a, _ := tagRows(t, env, exec); a != 8 {
		t.Fatalf("%d active tags, want 8", a)
	}

	// Null metadata removes every matching tag whatever its metadata, and names the oldest.
	sts, res = patch(t, user, tag(remove, "null"))
	wantStatuses(t, "remove all", sts, "removed")
	if res[0].TagId == nil || *res[0].TagId != list.Tags[0].Id {
		t.Fatalf("remove all names %v, want the oldest %s", res[0].TagId, list.Tags[0].Id)
	}
	if a, d := tagRows(t, env, exec); a != 3 || d != 6 {
		t.Fatalf("rows active %d deleted %d, want the 3 other keys and 6 deleted", a, d)
	}
	sts, _ = patch(t, user, tag(add, `{"a": 1}`), tag(add, `{"a": 2}`), tag(remove, ""))
	wantStatuses(t, "omitted metadata removes all", sts, "added", "added", "removed")
	if a, _ := tagRows(t, env, exec); a != 3 {
		t.Fatalf("%d active tags, want 3", a)
	}
}

// TestBatchIsAllOrNothing: a batch refused at its third item changes nothing, whatever the first two did.
func TestBatchIsAllOrNothing(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	exec := execution(t, env, org, flowOpts{})
	deleted := execution(t, env, org, flowOpts{status: "deleted"})
	private := execution(t, env, org, flowOpts{creator: &env.User(t, org, auth.RoleAppUser).UserID, visibility: "private"})
	patch(t, user, tagOp(add, exec, "a", "keep", "label", ""))

	for third, want := range map[uuid.UUID]int{deleted: http.StatusConflict, uuid.New(): http.StatusNotFound, private: http.StatusNotFound} {
		res, err := user.API.BatchPatchTaskTagsWithResponse(ctx, platformapi.PatchFlowTaskTagsRequest{Tags: []platformapi.PatchFlowTaskTagsRequestItem{
			tagOp(add, exec, "a", "new", "label", ""),
			tagOp(remove, exec, "a", "keep", "label", ""),
			tagOp(add, third, "a", "x", "label", ""),
		}})
		testkit.Expect(t, res, err, want)
		if a, d := tagRows(t, env, exec); a != 1 || d != 0 {
			t.Fatalf("after a refused batch: rows active %d deleted %d, want 1 and 0", a, d)
		}
	}
	// A batch may span executions.
	other := execution(t, env, org, flowOpts{})
	sts, _ := patch(t, user, tagOp(add, exec, "a", "new", "label", ""), tagOp(add, other, "a", "new", "label", ""))
	wantStatuses(t, "two executions", sts, "added", "added")
}

// TestConcurrentIdenticalAdds make one active tag: every other add answers already_exists with its id.
func TestConcurrentIdenticalAdds(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	org := env.Org(t)
	user := env.User(t, org, auth.RoleAppUser)
	exec := execution(t, env, org, flowOpts{})
	const n = 8
	var wg sync.WaitGroup
	results := make([]platformapi.PatchFlowTaskTagsResultItem, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each batch adds the same two tags, half of them in the opposite order.
			a, b := tagOp(add, exec, "t", "one", "label", `{"k": 1}`), tagOp(add, exec, "t", "two", "label", "")
			items := []platformapi.PatchFlowTaskTagsRequestItem{a, b}
			if i%2 == 1 {
				items = []platformapi.PatchFlowTaskTagsRequestItem{b, a}
			}
			res, err := user.API.BatchPatchTaskTagsWithResponse(ctx, platformapi.PatchFlowTaskTagsRequest{Tags: items})
			if err != nil || res.StatusCode() != http.StatusOK {
				t.Errorf("concurrent batch: %v %s", err, testkit.Body(res))
				return
			}
			results[i] = res.JSON200.Tags[i%2]
		}()
	}
	wg.Wait()
	added := 0
	for _, r := range results {
		if r.Status == platformapi.TaskTagOperationStatusAdded {
			added++
		}
		if r.TagId == nil || *r.TagId != *results[0].TagId {
			t.Fatalf("results name different tags: %+v", results)
		}
	}
	if a, _ := tagRows(t, env, exec); added != 1 || a != 2 {
		t.Fatalf("%d added, %d active tags; want 1 and 2", added, a)
	}
}
