package documents_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestPreviewRefusesAsUploadDoes: a file the upload refuses (empty, blank, binary, not UTF-8) is refused
// by the preview too, with the same 422 and the same reason; a binary file is called binary, not
// reported as a quote left open.
func TestPreviewRefusesAsUploadDoes(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	doc := newDoc(t, c, "sniffed")
	for name, tc := range map[string]struct {
		file []byte
		says string
	}{
		"empty":        {[]byte{}, "the file is empty"},
		"blank":        {[]byte("\xEF\xBB\xBF \r\n\n"), "the file is empty"},
		"binary":       {append([]byte("\x89PNG\r\n\x1a\n\"\x00\x00\x00\rIHDR"), make([]byte, 100)...), "the file is binary"},
		"latin-1 text": {[]byte("name\nJos\xe9\n"), "not UTF-8 text"},
	} {
		ct, body := form(tc.file)
		up, err := c.API.StartDocumentUploadWithBodyWithResponse(ctx, doc.Id, ct, body)
		testkit.Expect(t, up, err, http.StatusUnprocessableEntity)
		ct, body = form(tc.file)
		pv, err := c.API.PreviewDocumentUploadWithBodyWithResponse(ctx, doc.Id, ct, body)
		testkit.Expect(t, pv, err, http.StatusUnprocessableEntity)
		for what, b := range map[string][]byte{"upload": up.Body, "preview": pv.Body} {
			if !strings.Contains(string(b), tc.says) || !strings.Contains(string(b), `"loc":["body","file"]`) {
				t.Errorf("%s, %s: %s; want it to say %q", name, what, b, tc.says)
			}
		}
	}
}

// TestPreviewSizeOfSmallFile: file_size_mb of a file of a few bytes is its fraction of a megabyte, not 0.
func TestPreviewSizeOfSmallFile(t *testing.T) {
	t.Parallel()
	env := testkit.NewEnv(t)
	c := env.User(t, env.Org(t), auth.RoleAppUser)
	doc := newDoc(t, c, "small")
	ct, body := form([]byte("a,b\n1,2\n"))
	pv, err := c.API.PreviewDocumentUploadWithBodyWithResponse(ctx, doc.Id, ct, body)
	testkit.Expect(t, pv, err, http.StatusOK)
	if m := pv.JSON200.Metadata; m.FileSize != 8 || m.FileSizeMb != 8.0/1048576 {
		t.Fatalf("metadata %+v, want 8 bytes and %v MB", m, 8.0/1048576)
	}
}
