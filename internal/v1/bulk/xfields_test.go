package bulk_test

import (
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// raw sends a request without the contract check of the generated client: a masked body may leave out
// fields the schema requires, which the contract's X-Fields description allows.
func (f *fixture) raw(t *testing.T, method, path, token, mask string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, f.env.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("X-Fields", mask)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, body
}

func keys(t *testing.T, body []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("not a JSON object: %s", body)
	}
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

// TestXFields: /v1 replies honour the X-Fields mask end to end; a malformed mask is a 400 naming the
// header and the request does nothing; credentials are checked before the mask.
func TestXFields(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ids := f.seed(t, f.app, 1500, "SCHEDULED")
	base := "/v1/apps/" + f.app.String()

	st, _, body := f.raw(t, http.MethodPost, base+"/cancel", f.admin.Token, "matched{")
	if st != http.StatusBadRequest || !strings.Contains(string(body), "X-Fields") {
		t.Fatalf("malformed mask: %d %s", st, body)
	}
	f.wantStatus(t, ids, "SCHEDULED")
	if st, _, body := f.raw(t, http.MethodPost, base+"/cancel", "", "matched{"); st != http.StatusUnauthorized {
		t.Fatalf("malformed mask without credentials: %d %s, want 401", st, body)
	}

	st, hdr, body := f.raw(t, http.MethodPost, base+"/cancel?idLessThan="+strconv.FormatInt(ids[10], 10), f.admin.Token, "{matched}")
	if st != http.StatusOK || string(body) != `{"matched":10}`+"\n" || hdr.Get("X-Request-ID") == "" {
		t.Fatalf("masked cancel: %d %s %v", st, body, hdr)
	}
	st, _, body = f.raw(t, http.MethodPost, base+"/cancel", f.admin.Token, "operation_id,canceled")
	if st != http.StatusAccepted || keys(t, body) != "canceled,operation_id" {
		t.Fatalf("masked 202: %d %s", st, body)
	}
	var reply struct {
		OperationID uuid.UUID `json:"operation_id"`
	}
	if err := json.Unmarshal(body, &reply); err != nil {
		t.Fatal(err)
	}
	f.wait(t, f.admin, f.app, reply.OperationID)
	path := base + "/operations/" + reply.OperationID.String()
	for mask, want := range map[string]string{
		"id,status":            "id,status",
		"{processed, nothing}": "processed",
		"*":                    "app_id,created_at,created_by,finished_at,id,processed,started_at,status,total,type",
	} {
		st, _, body := f.raw(t, http.MethodGet, path, f.admin.Token, mask)
		if st != http.StatusOK || keys(t, body) != want {
			t.Fatalf("mask %q: %d %s, want the fields %s", mask, st, body, want)
		}
	}
	if st, _, body := f.raw(t, http.MethodGet, base+"/operations/"+uuid.NewString(), f.admin.Token, "id"); st != http.StatusNotFound ||
		!strings.Contains(string(body), "request_id") {
		t.Fatalf("an error reply is not masked: %d %s", st, body)
	}
}
