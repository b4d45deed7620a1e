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
	if c.TaskWorkersPerOrgValue() != 16 || c.TranscriptionSlots != 2 || c.TranscriptionSlotsPerOrg != 1 {
		t.Fatalf("fair shares: %d workers per organization, %d/%d recogniser slots", c.TaskWorkersPerOrgValue(),
			c.TranscriptionSlotsPerOrg, c.TranscriptionSlots)
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
		"LOOPWORK_READ_DATABASE_URL": "mysql://x",
		"LOOPWORK_PUBLIC_URL":        "example.com",
		"LOOPWORK_SHUTDOWN_TIMEOUT":  "-1s",

		"OTEL_EXPORTER_OTLP_ENDPOINT":          "collector:4318",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT":   "grpc://collector:4317",
		"OTEL_EXPORTER_OTLP_PROTOCOL":          "grpc",
		"LOOPWORK_TRACE_SAMPLE_RATIO":          "1.5",
		"LOOPWORK_METRICS_ADDR":                "9090",
		"LOOPWORK_TASK_WORKERS_PER_ORG":        "33",
		"LOOPWORK_TRANSCRIPTION_SLOTS":         "0",
		"LOOPWORK_TRANSCRIPTION_SLOTS_PER_ORG": "3",
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

// TestOTLPTracesURL: tracing is off unless an endpoint is set; the base endpoint gets the traces path
// appended and the traces endpoint is taken as it is, as OpenTelemetry's exporters read them.
func TestOTLPTracesURL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		env  map[string]string
		want string
	}{
		{nil, ""},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/"}, "http://collector:4318/v1/traces"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://otlp.example.com/otlp"}, "https://otlp.example.com/otlp/v1/traces"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318",
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://traces:9999/in"}, "http://traces:9999/in"},
	}
	for _, c := range cases {
		cfg, err := config.FromEnv(env(c.env))
		if err == nil {
			err = cfg.Validate()
		}
		if err != nil || cfg.OTLPTracesURL() != c.want || cfg.ServiceName != "loopwork" || cfg.TraceSampleRatio != 1 {
			t.Errorf("%v: %q (service %q, ratio %v), %v; want %q", c.env, cfg.OTLPTracesURL(), cfg.ServiceName,
				cfg.TraceSampleRatio, err, c.want)
		}
	}
}
