package documents_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/credits"
	"github.com/loopwork/loopwork/internal/testkit"
)

// TestDocumentsElsewhere: with LOOPWORK_DOCUMENTS_DATABASE_URL set, the organizations' databases and
// roles are made through it, and documents work as they do on loopwork's own cluster; when its user may
// not create roles, the import fails with a message for the organization that names no host, user or
// connection string.
func TestDocumentsElsewhere(t *testing.T) {
	t.Parallel()
	t.Run("a user that may create them", func(t *testing.T) {
		t.Parallel()
		env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) { c.DocumentsDatabaseURL = testkit.ServerURL(t) }))
		org := env.Org(t)
		c := env.User(t, org, auth.RoleAppUser)
		if err := credits.Grant(ctx, env.DB, org, 100); err != nil {
			t.Fatal(err)
		}
		doc := newDoc(t, c, "there")
		if d := imported(t, c, doc.Id, []byte("k\nfar\n"), platformapi.FileUploadCompleteRequest{}); d.Status != platformapi.DocumentFileStatusReady {
			t.Fatalf("import: %+v", d)
		}
		if got := query(t, env, c, doc.Id, `SELECT k FROM there`); got.Status != "completed" || !strings.Contains(string(got.Output), "far") {
			t.Fatalf("query: %s %s", got.Output, got.Error)
		}
	})
	t.Run("a user that may not", func(t *testing.T) {
		t.Parallel()
		admin := testkit.DB(t)
		weak := "lwtest_weak_" + strings.ReplaceAll(uuid.NewString()[:8], "-", "")
		if _, err := admin.Exec(`CREATE ROLE ` + weak + ` LOGIN PASSWORD 'weak-secret'`); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { admin.Exec(`DROP ROLE IF EXISTS ` + weak) })
		url := strings.Replace(testkit.ServerURL(t), "postgres@", weak+":weak-secret@", 1)
		env := testkit.NewEnv(t, testkit.WithConfig(func(c *config.Config) { c.DocumentsDatabaseURL = url }))
		c := env.User(t, env.Org(t), auth.RoleAppUser)
		doc := newDoc(t, c, "nowhere")
		d := imported(t, c, doc.Id, []byte("k\n1\n"), platformapi.FileUploadCompleteRequest{})
		if d.Status != platformapi.DocumentFileStatusFailed || d.Error == nil || !strings.Contains(*d.Error, "could not be created") {
			t.Fatalf("import: %+v", d)
		}
		for _, leak := range []string{weak, "weak-secret", "127.0.0.1", "5432", "postgres"} {
			if strings.Contains(*d.Error, leak) {
				t.Errorf("the error names %q: %s", leak, *d.Error)
			}
		}
	})
}
