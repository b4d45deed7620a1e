package deploy_test

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/deploy"
)

func compose(t *testing.T) *deploy.Compose {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot(t), "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := deploy.ParseCompose(f)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// composeValues are what an operator puts in .env: a value for every required variable.
var composeValues = map[string]string{
	"POSTGRES_PASSWORD":       "compose-password",
	"LOOPWORK_ENCRYPTION_KEY": "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
	"LOOPWORK_ANON_KEY":       "lw-anon-compose",
}

// TestComposeImagesArePinned: every image compose pulls is a fixed release, and loopwork's is built
// from this repository's default target.
func TestComposeImagesArePinned(t *testing.T) {
	t.Parallel()
	c := compose(t)
	for _, name := range c.ServiceNames() {
		s := c.Services[name]
		if s.Build != nil {
			continue // built here; its Dockerfile's images are checked above
		}
		if !pinned(s.Image) {
			t.Errorf("service %s: image %q is not pinned to a release tag", name, s.Image)
		}
	}
	lw := c.Services["loopwork"]
	if lw.Build == nil || lw.Build.Context != "." || lw.Build.Target != "runtime" {
		t.Errorf("loopwork: build %+v, want this repository's runtime target", lw.Build)
	}
}

// TestComposeSettings: every variable compose sets for loopwork is a real setting, the settings serve
// requires are there once the operator's values are, and compose refuses to start without those values.
func TestComposeSettings(t *testing.T) {
	t.Parallel()
	lw := compose(t).Services["loopwork"]
	if lw.EnvFile != nil {
		t.Fatal("loopwork: env_file settings cannot be checked here; set them under environment")
	}
	known := map[string]bool{}
	for _, s := range config.Settings() {
		known[s.Env] = true
	}
	for k := range lw.Environment {
		if !known[k] {
			t.Errorf("loopwork: %s is not a setting of config.Config", k)
		}
	}
	env, err := lw.ResolvedEnvironment(deploy.Environ(composeValues))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.FromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("compose's settings do not validate: %v", err)
	}
	if err := cfg.RequireDatabase(); err != nil {
		t.Error(err)
	}
	if err := cfg.RequireSecrets(); err != nil {
		t.Error(err)
	}
	for k := range composeValues {
		without := withoutKey(composeValues, k)
		if _, err := lw.ResolvedEnvironment(deploy.Environ(without)); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("compose starts loopwork without %s (error %v); mark it required with ${%s:?…}", k, err, k)
		}
	}
	if _, port, _ := net.SplitHostPort(env["LOOPWORK_ADDR"]); !slices.ContainsFunc(lw.Ports, func(p string) bool {
		return strings.HasSuffix(p, ":"+port)
	}) {
		t.Errorf("loopwork: LOOPWORK_ADDR=%s is not published in ports %v", env["LOOPWORK_ADDR"], lw.Ports)
	}
	if !slices.ContainsFunc(lw.Volumes, func(v string) bool {
		_, dir, _ := strings.Cut(v, ":")
		return strings.HasPrefix(env["LOOPWORK_STORAGE_DIR"], dir+"/")
	}) {
		t.Errorf("loopwork: LOOPWORK_STORAGE_DIR=%s is on no volume of %v", env["LOOPWORK_STORAGE_DIR"], lw.Volumes)
	}
}

// withoutKey copies m without the key drop.
func withoutKey(m map[string]string, drop string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if k != drop {
			out[k] = v
		}
	}
	return out
}

func TestInterpolate(t *testing.T) {
	t.Parallel()
	vars := deploy.Environ(map[string]string{"A": "a", "E": ""})
	for in, want := range map[string]string{
		"x${A}y": "xay", "${E:-d}": "d", "${E-d}": "", "${U-d}": "d", "$$A": "$A", "${A:?m}": "a", "$A.": "a.",
	} {
		if got, err := deploy.Interpolate(in, vars); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"${E:?need E}", "${U?need U}"} {
		if _, err := deploy.Interpolate(in, vars); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}
