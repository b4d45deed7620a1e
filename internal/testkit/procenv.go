package testkit

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/engine/state/statetest"
	"github.com/loopwork/loopwork/internal/secret"
)

// NewProcessEnv is NewEnv with the server as operators run it: `loopwork serve`, a process of its own
// built by BuildServer, on a fresh migrated database and a free port, stopped when the test ends. An
// attack a tenant makes is tried against this, so that what confines it is the binary's own wiring
// (its settings, its listeners, its pools) and not the harness's.
//
// settings (NAME=value) are the environment variables an operator would set, over those Serve and
// this function start the process with. Env.Config is read from the same settings, so a test reads
// the values the process runs with (the SMTP listener's address, say) from it; an address the test
// must know in advance is a setting with a FreePort.
//
// Env.Server is nil: a test that needs the in-process server's hooks (its memo bus, its listeners'
// chosen ports, a replaced mail sender or authenticator) uses NewEnv. Env.Process is the process, for
// its logs and memory. The callers Org, User, KeyCaller and SignIn make are written to the database
// and signed with the keys the process verifies against, as for NewEnv.
func NewProcessEnv(t testing.TB, settings ...string) *Env {
	t.Helper()
	if err := knownSettings(settings); err != nil {
		t.Fatal(err)
	}
	db := DB(t)
	if _, bench := t.(*testing.B); !bench {
		statetest.Record(t, db) // as NewEnv: the engine's moves are checked when the test ends
	}
	dsn, addr := DSN(t, db), FreePort(t)
	// Files go to the test's own directory, not to the default under the package's source directory
	// (the process's working directory); links name the process, as NewEnv's name its server.
	env := append([]string{"LOOPWORK_STORAGE_DIR=" + t.TempDir(), "LOOPWORK_PUBLIC_URL=http://" + addr}, settings...)
	// The process inherits the test's environment (Serve), so Config is read from it too.
	cfg, err := config.FromEnv(lookup(append(append(os.Environ(), serveSettings(dsn, addr)...), env...)))
	if err != nil {
		t.Fatal(err)
	}
	// A wrong value is named here, rather than as a process that never becomes ready.
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	box, err := secret.NewBox(cfg.EncryptionKeyBytes())
	if err != nil {
		t.Fatal(err)
	}
	p := Serve(t, BuildServer(t), dsn, addr, env...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the server's log:\n%s", p.Logs())
		}
	})
	hc := &http.Client{Transport: &ContractTransport{T: t}}
	api, err := platformapi.NewClientWithResponses(p.URL, platformapi.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	v1c, err := v1api.NewClientWithResponses(p.URL, v1api.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	// The signing keys are shared through the database: whichever of the test and the process needs
	// one first creates it, and the other reads it.
	keys := auth.NewKeyStore(db, box, cfg.SigningKeyRotation, cfg.AccessTokenTTL)
	tokens := auth.NewTokens(keys, cfg.JWTIssuer, cfg.JWTAudience, cfg.AccessTokenTTL, nil)
	return &Env{Config: cfg, DB: db, Process: p, URL: p.URL, HTTP: hc, API: api, V1: v1c, tokens: tokens}
}

// knownSettings refuses a setting that is not NAME=value, and a loopwork setting config does not know:
// a misspelt name would leave the process at the default, and an attack test passing against the
// default proves nothing about the limit it names. Other variables (GODEBUG, TMPDIR) pass as they are.
func knownSettings(settings []string) error {
	known := map[string]bool{}
	for _, s := range config.Settings() {
		known[s.Env] = true
	}
	for _, s := range settings {
		name, _, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			return fmt.Errorf("setting %q: want NAME=value", s)
		}
		if (strings.HasPrefix(name, "LOOPWORK_") || name == "DATABASE_URL") && !known[name] {
			return fmt.Errorf("setting %q: %s is no setting of internal/config", s, name)
		}
	}
	return nil
}

// lookup reads NAME=value pairs as the environment does: the last of a name wins, as in the process.
func lookup(env []string) func(string) string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if name, value, ok := strings.Cut(kv, "="); ok {
			m[name] = value
		}
	}
	return func(name string) string { return m[name] }
}
