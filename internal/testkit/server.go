package testkit

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/server"
)

// Env is one running loopwork: its own database, the real HTTP stack on a local port, and generated
// clients for both interfaces. Every response they receive is checked against the contract.
type Env struct {
	DB     *sqlx.DB
	Server *server.Server
	URL    string
	HTTP   *http.Client
	API    *platformapi.ClientWithResponses
	V1     *v1api.ClientWithResponses
}

// Settings are what an Option may change before an Env starts.
type Settings struct {
	Config        config.Config
	Authenticator httpx.Authenticator
	// DB, when set, is used instead of a fresh migrated database.
	DB *sqlx.DB
}

// Option adjusts an Env before it starts.
type Option func(*Settings)

// WithAuthenticator makes the server accept credentials through a.
func WithAuthenticator(a httpx.Authenticator) Option {
	return func(s *Settings) { s.Authenticator = a }
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
	st := Settings{Config: cfg}
	for _, o := range opts {
		o(&st)
	}
	db := st.DB
	if db == nil {
		db = DB(t)
	}
	cfg = st.Config
	cfg.DatabaseURL = DSN(t, db)
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	if testing.Verbose() {
		logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	srv, err := server.New(server.Deps{Config: cfg, DB: db, Logger: logger, Authenticator: st.Authenticator})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	hc := &http.Client{Transport: &ContractTransport{T: t}}
	api, err := platformapi.NewClientWithResponses(ts.URL, platformapi.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	v1c, err := v1api.NewClientWithResponses(ts.URL, v1api.WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	return &Env{DB: db, Server: srv, URL: ts.URL, HTTP: hc, API: api, V1: v1c}
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
