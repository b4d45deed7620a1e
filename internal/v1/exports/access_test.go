package exports_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestExportStatuses: every export route by status — roles, tenancy, bad input, links of unfinished,
// unknown and other organizations' files.
func TestExportStatuses(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.seedFixed(t)
	e, _ := f.export(t, f.admin, v1api.ExportJobResponsesParams{Csv: new(true), FileName: new("march")})
	if e.Filename != "march.csv" || e.JobCount == nil || *e.JobCount != 2 || e.ExpiresAt == nil || e.CreatedBy == nil ||
		*e.CreatedBy != f.admin.Email || (*e.Options)["fileName"] != "march" {
		t.Fatalf("export %+v: count %v by %v options %v", e, *e.JobCount, *e.CreatedBy, *e.Options)
	}
	// The same name again gets a suffix.
	again, err := f.admin.V1.ExportJobResponsesWithResponse(ctx, f.app, &v1api.ExportJobResponsesParams{Csv: new(true),
		FileName: new("march")}, v1api.AppInstanceEmail{})
	testkit.Expect(t, again, err, http.StatusAccepted)
	if again.JSON202.Filename != "march-2.csv" || again.JSON202.Format != "csv" {
		t.Fatalf("second export named %s", again.JSON202.Filename)
	}

	labeler, manager := f.member(t, "LABELER"), f.member(t, "MANAGER")
	stranger := f.env.User(t, f.env.Org(t), auth.RoleOrgAdmin)
	_, anon := f.env.Clients(t, "")
	for _, c := range []struct {
		who  string
		v1   *v1api.ClientWithResponses
		want int
	}{{"labeler", labeler.V1, 403}, {"stranger", stranger.V1, 404}, {"anonymous", anon, 401}, {"manager", manager.V1, 202}} {
		res, err := c.v1.ExportJobResponsesWithResponse(ctx, f.app, &v1api.ExportJobResponsesParams{}, v1api.AppInstanceEmail{})
		testkit.Expect(t, res, err, c.want)
		list, err := c.v1.ListExportsWithResponse(ctx, f.app, nil)
		testkit.Expect(t, list, err, map[int]int{202: 200}[c.want]+map[bool]int{true: c.want}[c.want != 202])
		get, err := c.v1.GetExportWithResponse(ctx, f.app, e.Id, nil)
		testkit.Expect(t, get, err, map[int]int{202: 200}[c.want]+map[bool]int{true: c.want}[c.want != 202])
	}
	missing, err := f.admin.V1.GetExportWithResponse(ctx, f.app, uuid.New(), nil)
	testkit.Expect(t, missing, err, http.StatusNotFound)
	list, err := f.admin.V1.ListExportsWithResponse(ctx, f.app, &v1api.ListExportsParams{Size: new(2), SortBy: new(v1api.ListExportsParamsSortByCreatedAt)})
	testkit.Expect(t, list, err, http.StatusOK)
	if list.JSON200.Total != 3 || len(list.JSON200.Items) != 2 || list.JSON200.Items[0].Id != e.Id {
		t.Fatalf("list: %+v", list.JSON200)
	}

	// Links: the creator and managers get one; a labeler is refused; an unknown file, another
	// organization's and an unfinished one are the same 404.
	link, err := manager.V1.GetJobResponsesLinkWithResponse(ctx, "march.csv", nil)
	testkit.Expect(t, link, err, http.StatusOK)
	if !strings.Contains(link.JSON200.Url, "/api/storage/download/") || *link.JSON200.ContentType != "text/csv" {
		t.Fatalf("link %+v", link.JSON200)
	}
	denied, err := labeler.V1.GetJobResponsesLinkWithResponse(ctx, "march.csv", nil)
	testkit.Expect(t, denied, err, http.StatusForbidden)
	unknown, err := f.admin.V1.GetJobResponsesLinkWithResponse(ctx, "nothing.csv", nil)
	testkit.Expect(t, unknown, err, http.StatusNotFound)
	theirs, err := stranger.V1.GetJobResponsesLinkWithResponse(ctx, "march.csv", nil)
	testkit.SameAsMissing(t, theirs, unknown)
	f.env.DB.MustExec(`UPDATE exports SET status = 'RUNNING' WHERE filename = 'march-2.csv'`)
	running, err := f.admin.V1.GetJobResponsesLinkWithResponse(ctx, "march-2.csv", nil)
	testkit.SameAsMissing(t, running, unknown)

	// Bad input: a delimiter or enum outside the contract, a path as a file name, an e-mail nobody has.
	for name, params := range map[string]string{
		"fieldDelimiter": "fieldDelimiter=tab", "fileName": "fileName=../x", "reviewed": "reviewed=MAYBE",
		"inputPath": "inputPath=nope&inputValue=1",
	} {
		res, err := f.admin.V1.ExportJobResponsesWithResponse(ctx, f.app, &v1api.ExportJobResponsesParams{}, v1api.AppInstanceEmail{},
			func(_ context.Context, r *http.Request) error { r.URL.RawQuery = params; return nil })
		testkit.Expect(t, res, err, http.StatusBadRequest)
		if !strings.Contains(string(res.Body), name) {
			t.Errorf("%s: the 400 does not name it: %s", params, res.Body)
		}
	}
	key := f.env.KeyCaller(t, f.org, auth.RoleIntegration)
	noMail, err := key.V1.ExportJobResponsesWithResponse(ctx, f.app, &v1api.ExportJobResponsesParams{SendEmail: new(true)}, v1api.AppInstanceEmail{})
	testkit.Expect(t, noMail, err, http.StatusBadRequest)
	badLink, err := http.Get(f.env.URL + "/api/storage/download/not-a-token")
	if err != nil || badLink.StatusCode != http.StatusForbidden {
		t.Fatalf("a forged token: %v %v", badLink.StatusCode, err)
	}
}
