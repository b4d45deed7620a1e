package testkit

import (
	"context"
	"net/http"
	"os"
	"testing"

	"github.com/loopwork/loopwork/internal/auth"
)

// TestProcessEnv: an Env of NewProcessEnv reads its settings as the process does, and the callers its
// factories make (a signed-in user, an API key) are accepted by the process, a stranger is not.
func TestProcessEnv(t *testing.T) {
	t.Parallel()
	env := NewProcessEnv(t, "LOOPWORK_SQL_MAX_ROWS=123")
	if env.Server != nil || env.Process == nil || env.URL != env.Process.URL {
		t.Fatalf("server %v, process %v, URL %s", env.Server, env.Process, env.URL)
	}
	if env.Config.SQLMaxRows != 123 || env.Config.AnonKey != AnonKey || env.Config.PublicURL != env.URL {
		t.Fatalf("config: max rows %d, anon key %q, public URL %q", env.Config.SQLMaxRows, env.Config.AnonKey, env.Config.PublicURL)
	}
	if fi, err := os.Stat(env.Config.StorageDir); err != nil || !fi.IsDir() {
		t.Fatalf("storage directory %q: %v", env.Config.StorageDir, err)
	}
	org := env.Org(t)
	for _, c := range []*Caller{env.User(t, org, auth.RoleAppUser), env.KeyCaller(t, org, auth.RoleAppUser)} {
		res, err := c.API.ListDocumentsWithResponse(context.Background(), nil)
		Expect(t, res, err, http.StatusOK)
	}
	stranger, _ := env.Clients(t, "")
	res, err := stranger.ListDocumentsWithResponse(context.Background(), nil)
	Expect(t, res, err, http.StatusUnauthorized)
}

// TestKnownSettings: a misspelt loopwork setting is refused before a process runs at its default.
func TestKnownSettings(t *testing.T) {
	for _, c := range []struct {
		setting string
		ok      bool
	}{
		{"LOOPWORK_SQL_MAX_ROWS=5", true},
		{"LOOPWORK_INBOUND_SMTP_ADDR=127.0.0.1:2525", true},
		{"GODEBUG=gctrace=1", true},
		{"LOOPWORK_SQL_MAX_ROW=5", false},
		{"LOOPWORK_SQL_MAX_ROWS", false},
		{"=5", false},
	} {
		if err := knownSettings([]string{c.setting}); (err == nil) != c.ok {
			t.Errorf("%s: %v", c.setting, err)
		}
	}
}

// TestServerBinVar: the binary LOOPWORK_TEST_SERVER names is used as it is; a relative path or a file
// that cannot run is refused.
func TestServerBinVar(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(ServerBinVar, self)
	if got := BuildServer(t); got != self {
		t.Fatalf("BuildServer = %s, want %s", got, self)
	}
	plain := t.TempDir() + "/plain"
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"bin/loopwork", plain, t.TempDir(), t.TempDir() + "/missing"} {
		if usableBin(bad) == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}
