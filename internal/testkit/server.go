package testkit

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/jqrun"
	"github.com/loopwork/loopwork/internal/engine/state/statetest"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/mail"
	"github.com/loopwork/loopwork/internal/server"
	"github.com/loopwork/loopwork/internal/tracing"
)

// Env is one running loopwork: its own database, the real HTTP stack on a local port, and generated
// clients for both interfaces. Every response they receive is checked against the contract.
type Env struct {
	Config config.Config
	DB     *sqlx.DB
	// Server is the in-process server of NewEnv; an Env of NewProcessEnv has none (nil), and Process
	// is its `loopwork serve` instead.
	Server  *server.Server
	Process *Process
	URL     string
	HTTP    *http.Client
	API     *platformapi.ClientWithResponses
	V1      *v1api.ClientWithResponses
	// tokens signs the callers SignIn makes in, with the keys the server verifies against.
	tokens *auth.Tokens
}

// Settings are what an Option may change before an Env starts.
type Settings struct {
	Config        config.Config
	Authenticator httpx.Authenticator
	// DB, when set, is used instead of a fresh migrated database.
	DB *sqlx.DB
	// NoWorkers leaves the background workers stopped (for a server on an unmigrated database).
	NoWorkers bool
	// MailSender and OutboundClient replace the server's (see server.Deps).
	MailSender     mail.Sender
	OutboundClient *http.Client
	// Tracing records the server's spans, its pool's statements among them.
	Tracing *tracing.Tracing
	// JQ replaces the server's pool of jq children (see server.Deps).
	JQ *jqrun.Pool
}

// EncryptionKey and AnonKey are the secrets every test server runs with.
const (
	EncryptionKey = "bG9vcHdvcmstdGVzdC1lbmNyeXB0aW9uLWtleS0zMmI="
	AnonKey       = "lw-anon-test-key"
)

// WithoutWorkers leaves the background workers stopped.
func WithoutWorkers() Option {
	return func(s *Settings) { s.NoWorkers = true }
}

// WithConfig adjusts the configuration.
func WithConfig(f func(*config.Config)) Option {
	return func(s *Settings) { f(&s.Config) }
}

// WithMailSender makes the server deliver mail through m.
func WithMailSender(m mail.Sender) Option {
	return func(s *Settings) { s.MailSender = m }
}

// WithOutboundClient replaces the SSRF-guarded client for tenant-controlled URLs.
func WithOutboundClient(c *http.Client) Option {
	return func(s *Settings) { s.OutboundClient = c }
}

// Option adjusts an Env before it starts.
type Option func(*Settings)

// WithAuthenticator makes the server accept credentials through a.
func WithAuthenticator(a httpx.Authenticator) Option {
	return func(s *Settings) { s.Authenticator = a }
}

// WithTracing makes the server record its spans through tr, on a pool of its database whose statements
// tr traces too.
func WithTracing(tr *tracing.Tracing) Option {
	return func(s *Settings) { s.Tracing = tr }
}

// WithJQ makes the server evaluate jq with pool (a benchmark's in-process evaluator).
func WithJQ(pool *jqrun.Pool) Option {
	return func(s *Settings) { s.JQ = pool }
}

// WithDB runs the server on db (for example an EmptyDB) instead of a fresh migrated database.
func WithDB(db *sqlx.DB) Option {
	return func(s *Settings) { s.DB = db }
}

// NewEnv starts a server for the test and stops it when the test ends.
func NewEnv(t testing.TB, opts ...Option) *Env {
	t.Helper()
	cfg, err := config.FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.EncryptionKey, cfg.AnonKey = EncryptionKey, AnonKey
	cfg.StorageDir = t.TempDir()
	st := Settings{Config: cfg}
	for _, o := range opts {
		o(&st)
	}
	db := st.DB
	if db == nil {
		db = DB(t)
		// Every status change of the engine's rows is checked against its state machines when the
		// test ends, whichever interface caused it. Not in benchmarks: the record is a write per change.
		if _, bench := t.(*testing.B); !bench {
			statetest.Record(t, db)
		}
	}
	cfg = st.Config
	cfg.DatabaseURL = DSN(t, db)
	if st.Tracing.Enabled() {
		db = tracedPool(t, cfg.DatabaseURL, st.Tracing)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	if testing.Verbose() {
		logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	// Links the server hands out are built from its configured public URL only: the test server's own,
	// unless the test names another.
	ts := httptest.NewUnstartedServer(nil)
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + ts.Listener.Addr().String()
	}
	srv, err := server.New(server.Deps{Config: cfg, DB: db, Logger: logger, Authenticator: st.Authenticator,
		MailSender: st.MailSender, OutboundClient: st.OutboundClient, Tracing: st.Tracing, JQ: st.JQ})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if !st.NoWorkers {
		if err := srv.Start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ts.Config.Handler = srv
	ts.Start()
	t.Cleanup(func() {
		ts.Close()
		if !st.NoWorkers {
			_ = srv.Stop(5 * time.Second)
		}
		cancel()
	})
	hc := &http.Client{Transport: &ContractTransport{T: t}}
	api, err := platformapi.NewClientWithResponses(ts.URL, platformapi.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	v1c, err := v1api.NewClientWithResponses(ts.URL, v1api.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	return &Env{Config: cfg, DB: db, Server: srv, URL: ts.URL, HTTP: hc, API: api, V1: v1c, tokens: srv.Tokens()}
}

// tracedPool opens a second pool on the test's database whose statements tr traces.
func tracedPool(t testing.TB, dsn string, tr *tracing.Tracing) *sqlx.DB {
	t.Helper()
	db, err := dbx.Open(context.Background(), dsn, dbx.PoolOptions{MaxOpenConns: 20, MaxIdleConns: 5, Wrap: tr.Connector})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
