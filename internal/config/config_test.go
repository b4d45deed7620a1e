package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/loopwork/loopwork/internal/config"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDefaults(t *testing.T) {
	t.Parallel()
	c, err := config.FromEnv(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || !c.Migrate || c.BodyLimitBytes() != 10<<20 || c.ShutdownTimeout != 20*time.Second {
		t.Fatalf("defaults: %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults must validate: %v", err)
	}
	if err := c.RequireDatabase(); err == nil || !strings.Contains(err.Error(), "DATABASE_URL") {
		t.Fatalf("missing DATABASE_URL must be named: %v", err)
	}
}

// TestInvalidSettingIsNamed: a wrong value stops start-up with a message naming the variable.
func TestInvalidSettingIsNamed(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"LOOPWORK_MIGRATE":           "perhaps",
		"LOOPWORK_DB_MAX_OPEN_CONNS": "many",
		"LOOPWORK_READ_TIMEOUT":      "soon",
		"LOOPWORK_ADDR":              "8080",
		"LOOPWORK_LOG_LEVEL":         "loud",
		"LOOPWORK_BODY_LIMIT":        "big",
		"DATABASE_URL":               "mysql://x",
		"LOOPWORK_PUBLIC_URL":        "example.com",
		"LOOPWORK_SHUTDOWN_TIMEOUT":  "-1s",
		"LOOPWORK_METRICS_ADDR":      "9090",
	}
	for name, value := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := config.FromEnv(env(map[string]string{name: value}))
			if err == nil {
				err = c.Validate()
			}
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Fatalf("%s=%s: error %v does not name the setting", name, value, err)
			}
		})
	}
}

func TestLookupMasksPasswords(t *testing.T) {
	t.Parallel()
	c, err := config.FromEnv(env(map[string]string{"DATABASE_URL": "postgres://app:s3cret@db:5432/lw"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Lookup("DATABASE_URL"); strings.Contains(got, "s3cret") {
		t.Fatalf("password shown: %s", got)
	}
}
