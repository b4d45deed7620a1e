// Package config holds loopwork's whole configuration in one documented struct.
//
// Only cmd/ reads the environment (FromEnv); packages receive the values they need. Every setting has a
// default that works for local development, and Validate names the setting that is wrong.
package config

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is every setting of the server. The env tag names the environment variable that sets it.
type Config struct {
	// DatabaseURL is the PostgreSQL connection string (required for serve and migrate).
	DatabaseURL string `env:"DATABASE_URL"`
	// ReadDatabaseURL, when set, is a read replica of DatabaseURL (a hot standby) that the /v1 job lists
	// and counts read from, so that scans over millions of jobs load the replica instead of the primary.
	// Those answers lag the primary by the replica's replay delay; everything else reads the primary.
	ReadDatabaseURL string `env:"LOOPWORK_READ_DATABASE_URL"`
	// Addr is the listen address of the HTTP server.
	Addr string `env:"LOOPWORK_ADDR" default:"127.0.0.1:8080"`
	// PublicURL is the externally visible base URL, used in links the server hands out (e-mailed
	// invitations and recoveries, downloads). Empty builds links from Addr, and the server says so when
	// it starts; a request's Host or X-Forwarded-* headers are never used.
	PublicURL string `env:"LOOPWORK_PUBLIC_URL"`
	// Migrate runs pending migrations when serve starts.
	Migrate bool `env:"LOOPWORK_MIGRATE" default:"true"`
	// LogLevel is debug, info, warn or error.
	LogLevel string `env:"LOOPWORK_LOG_LEVEL" default:"info"`
	// LogFormat is json or text.
	LogFormat string `env:"LOOPWORK_LOG_FORMAT" default:"json"`
	// BodyLimit is the largest request body accepted on ordinary routes (bytes, or with K/M/G suffix).
	BodyLimit string `env:"LOOPWORK_BODY_LIMIT" default:"10M"`
	// CORSOrigins is a comma-separated list of allowed browser origins; * allows any.
	CORSOrigins string `env:"LOOPWORK_CORS_ORIGINS" default:"*"`
	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout bound slow clients.
	ReadHeaderTimeout time.Duration `env:"LOOPWORK_READ_HEADER_TIMEOUT" default:"10s"`
	ReadTimeout       time.Duration `env:"LOOPWORK_READ_TIMEOUT" default:"60s"`
	WriteTimeout      time.Duration `env:"LOOPWORK_WRITE_TIMEOUT" default:"60s"`
	IdleTimeout       time.Duration `env:"LOOPWORK_IDLE_TIMEOUT" default:"120s"`
	// ShutdownTimeout is how long in-flight requests get to finish after SIGTERM.
	ShutdownTimeout time.Duration `env:"LOOPWORK_SHUTDOWN_TIMEOUT" default:"20s"`
	// DBMaxOpenConns, DBMaxIdleConns and DBConnMaxLifetime size the connection pool.
	DBMaxOpenConns    int           `env:"LOOPWORK_DB_MAX_OPEN_CONNS" default:"25"`
	DBMaxIdleConns    int           `env:"LOOPWORK_DB_MAX_IDLE_CONNS" default:"25"`
	DBConnMaxLifetime time.Duration `env:"LOOPWORK_DB_CONN_MAX_LIFETIME" default:"30m"`
	// ReadinessTimeout bounds each readiness check.
	ReadinessTimeout time.Duration `env:"LOOPWORK_READINESS_TIMEOUT" default:"2s"`
	// TaskLease is how long a running task attempt stays claimed without a heartbeat from its worker; an
	// attempt whose worker died is run again after at most about this long.
	TaskLease time.Duration `env:"LOOPWORK_TASK_LEASE" default:"30s"`
	// TaskWorkers is how many task attempts one server runs at once (and how many background jobs of
	// each other kind); more servers on the same database run more.
	TaskWorkers int `env:"LOOPWORK_TASK_WORKERS" default:"32"`
	// TaskWorkersPerOrg is how many of those one organization's attempts may hold at once, so that
	// another organization's work always finds some free; 0 (the default) means half of TaskWorkers, at
	// least one. Setting it to TaskWorkers lets a single organization use them all.
	TaskWorkersPerOrg int `env:"LOOPWORK_TASK_WORKERS_PER_ORG" default:"0"`
	// DocumentsDatabaseURL is the PostgreSQL cluster where each organization's documents live, one
	// database and one login role per organization; empty (the default) uses DATABASE_URL's cluster, in
	// databases apart from loopwork's own. The user it names needs CREATEDB and CREATEROLE there.
	DocumentsDatabaseURL string `env:"LOOPWORK_DOCUMENTS_DATABASE_URL" secret:"true"`
	// DocumentsConnectionLimit is how many connections one organization's role may hold at once.
	DocumentsConnectionLimit int `env:"LOOPWORK_DOCUMENTS_CONNECTION_LIMIT" default:"5"`
	// DocumentsQuotaMB is the most an organization's imported document tables may take on disk (MB);
	// an import past it is refused.
	DocumentsQuotaMB int `env:"LOOPWORK_DOCUMENTS_QUOTA_MB" default:"1024"`
	// SQLStatementTimeout bounds each statement of a sql_query task (a shorter task timeout wins).
	SQLStatementTimeout time.Duration `env:"LOOPWORK_SQL_STATEMENT_TIMEOUT" default:"30s"`
	// SQLMaxRows is the most rows a sql_query task returns, whatever its max_rows asks (at most 100000).
	SQLMaxRows int `env:"LOOPWORK_SQL_MAX_ROWS" default:"10000"`
	// Tenants' jq programs (transforms, conditions, edge conditions, template expressions) run in a pool
	// of child processes, never in the server's own. JQWorkers is how many run at once (0: twice the
	// number of CPUs). JQMemory bounds the memory of one evaluation (bytes, or with K/M/G suffix).
	// JQMaxTime caps the deadline of a transform or condition, which is otherwise the task's timeout;
	// JQShortTime is the deadline of an edge condition and of each expression of a template.
	// JQMaxResult bounds the JSON of one result. A program past any of them fails its attempt with
	// error type limit_exceeded.
	JQWorkers   int           `env:"LOOPWORK_JQ_WORKERS" default:"0"`
	JQMemory    string        `env:"LOOPWORK_JQ_MEMORY" default:"256M"`
	JQMaxTime   time.Duration `env:"LOOPWORK_JQ_MAX_TIME" default:"30s"`
	JQShortTime time.Duration `env:"LOOPWORK_JQ_SHORT_TIME" default:"1s"`
	JQMaxResult string        `env:"LOOPWORK_JQ_MAX_RESULT" default:"16M"`

	// AnonKey is the anonymous key clients send to the authentication service in the apikey header.
	AnonKey string `env:"LOOPWORK_ANON_KEY" secret:"true"`
	// EncryptionKey seals secrets at rest (signing keys, credentials): 32 bytes, base64-encoded.
	EncryptionKey string `env:"LOOPWORK_ENCRYPTION_KEY" secret:"true"`
	// JWTIssuer and JWTAudience are the iss and aud of the access tokens this server issues.
	JWTIssuer   string `env:"LOOPWORK_JWT_ISSUER" default:"loopwork"`
	JWTAudience string `env:"LOOPWORK_JWT_AUDIENCE" default:"authenticated"`
	// AccessTokenTTL, RefreshTokenTTL: lifetimes of issued tokens.
	AccessTokenTTL  time.Duration `env:"LOOPWORK_ACCESS_TOKEN_TTL" default:"1h"`
	RefreshTokenTTL time.Duration `env:"LOOPWORK_REFRESH_TOKEN_TTL" default:"720h"`
	// SigningKeyRotation is how long a signing key signs before a new one takes over.
	SigningKeyRotation time.Duration `env:"LOOPWORK_SIGNING_KEY_ROTATION" default:"720h"`
	// ExternalJWKSURL, when set, makes the server also trust access tokens of an outside issuer
	// (ExternalIssuer, ExternalAudience) whose sub is a loopwork user id.
	ExternalJWKSURL  string `env:"LOOPWORK_EXTERNAL_JWKS_URL"`
	ExternalIssuer   string `env:"LOOPWORK_EXTERNAL_JWT_ISSUER"`
	ExternalAudience string `env:"LOOPWORK_EXTERNAL_JWT_AUDIENCE"`
	// InviteTTL and RecoveryTTL: how long e-mailed links stay valid.
	InviteTTL   time.Duration `env:"LOOPWORK_INVITE_TTL" default:"72h"`
	RecoveryTTL time.Duration `env:"LOOPWORK_RECOVERY_TTL" default:"1h"`
	// WebURL is the web client that e-mailed links open; empty uses PublicURL (or, without it, Addr).
	WebURL string `env:"LOOPWORK_WEB_URL"`
	// SMTP settings; with no SMTPHost, mail is logged and kept in the outbox instead of sent.
	SMTPHost     string `env:"LOOPWORK_SMTP_HOST"`
	SMTPPort     int    `env:"LOOPWORK_SMTP_PORT" default:"587"`
	SMTPUsername string `env:"LOOPWORK_SMTP_USERNAME"`
	SMTPPassword string `env:"LOOPWORK_SMTP_PASSWORD" secret:"true"`
	SMTPFrom     string `env:"LOOPWORK_SMTP_FROM" default:"loopwork <no-reply@loopwork.local>"`
	// SMTPTLS is starttls (upgrade required), tls (implicit TLS) or none.
	SMTPTLS string `env:"LOOPWORK_SMTP_TLS" default:"starttls"`
	// InboundSMTPAddr, when set (host:port), runs the inbound SMTP listener of e-mail tasks there; empty
	// (the default) runs none. InboundDomain is the domain of the tasks' addresses (empty: the domain of
	// SMTPFrom); the domain's MX record should point at the listener. InboundMaxBytes is the largest
	// message accepted (552 beyond it, while it is read).
	InboundSMTPAddr string `env:"LOOPWORK_INBOUND_SMTP_ADDR"`
	InboundDomain   string `env:"LOOPWORK_INBOUND_DOMAIN"`
	InboundMaxBytes string `env:"LOOPWORK_INBOUND_MAX_BYTES" default:"25M"`
	// InboundMaxSessions bounds the SMTP sessions open at once: a connection beyond it is answered 421
	// and closed, so senders that hold connections open cannot exhaust the server. InboundSessionTimeout
	// bounds one whole session, however busy it keeps the connection.
	InboundMaxSessions    int           `env:"LOOPWORK_INBOUND_MAX_SESSIONS" default:"100"`
	InboundSessionTimeout time.Duration `env:"LOOPWORK_INBOUND_SESSION_TIMEOUT" default:"10m"`
	// DNSResolver is the DNS server (host:port) asked for the TXT records that prove an organization owns
	// a single sign-on domain; empty asks the system's resolver.
	DNSResolver string `env:"LOOPWORK_DNS_RESOLVER"`
	// SignInLimitPerIP and SignInLimitPerEmail bound sign-in attempts per minute.
	SignInLimitPerIP    int `env:"LOOPWORK_SIGNIN_LIMIT_PER_IP" default:"30"`
	SignInLimitPerEmail int `env:"LOOPWORK_SIGNIN_LIMIT_PER_EMAIL" default:"10"`
	// MetricsAddr, when set (host:port), serves /metrics there, and nothing else, without credentials;
	// empty (the default) serves /metrics on the main listener to backoffice callers only.
	MetricsAddr string `env:"LOOPWORK_METRICS_ADDR"`
	// OutboundAllow lists CIDRs that tenant-controlled outbound calls may reach even though they are
	// private, loopback or link-local (comma-separated); empty refuses all of those.
	OutboundAllow string `env:"LOOPWORK_OUTBOUND_ALLOW"`
	// StorageDir is where files (exports, uploads, attachments) are kept when no S3-compatible storage
	// is configured; links to them are signed and served by the server itself.
	StorageDir string `env:"LOOPWORK_STORAGE_DIR" default:".data/storage"`
	// S3Endpoint, when set, keeps files in a bucket of an S3-compatible service instead of StorageDir,
	// and download links are the service's presigned GETs.
	S3Endpoint  string `env:"LOOPWORK_S3_ENDPOINT"`
	S3Bucket    string `env:"LOOPWORK_S3_BUCKET"`
	S3Region    string `env:"LOOPWORK_S3_REGION" default:"us-east-1"`
	S3AccessKey string `env:"LOOPWORK_S3_ACCESS_KEY_ID"`
	S3SecretKey string `env:"LOOPWORK_S3_SECRET_ACCESS_KEY" secret:"true"`
	// S3PathStyle addresses the bucket in the URL path (MinIO, versitygw) rather than the host name.
	S3PathStyle bool `env:"LOOPWORK_S3_FORCE_PATH_STYLE" default:"false"`
	// Models lists the language model endpoints the agent and llm tasks may use, as a JSON array of
	// {"model", "provider", "region" (eu or global), "location", "base_url", "api_key"} (OpenAI-compatible
	// chat completions at base_url); GET /api/models lists them, and the built-in offline model is always
	// there besides them.
	Models string `env:"LOOPWORK_MODELS" secret:"true"`
	// TranscriptionURL is an OpenAI-compatible API base URL (for example https://api.openai.com/v1) whose
	// /audio/transcriptions transcribes speech; empty uses the offline recogniser (pocketsphinx and
	// ffmpeg from Debian's packages, installed by make speech) when it is installed.
	TranscriptionURL string `env:"LOOPWORK_TRANSCRIPTION_URL"`
	// TranscriptionOffline allows the offline recogniser when no TranscriptionURL is set; false leaves
	// the server without speech-to-text (501) rather than spend its cores on recognition.
	TranscriptionOffline bool `env:"LOOPWORK_TRANSCRIPTION_OFFLINE" default:"true"`
	// TranscriptionAPIKey authenticates to TranscriptionURL.
	TranscriptionAPIKey string `env:"LOOPWORK_TRANSCRIPTION_API_KEY" secret:"true"`
	// TranscriptionModel is the model TranscriptionURL is asked for.
	TranscriptionModel string `env:"LOOPWORK_TRANSCRIPTION_MODEL" default:"whisper-1"`
	// AgentPerMinute bounds the agent replies (chat streams and direct calls) of one organization a
	// minute; AgentTimeout bounds one reply.
	AgentPerMinute int `env:"LOOPWORK_AGENT_PER_MINUTE" default:"60"`
	// AgentModel is the configured model (of LOOPWORK_MODELS) the conversational agent uses; empty uses
	// the built-in offline agent.
	AgentModel   string        `env:"LOOPWORK_AGENT_MODEL"`
	AgentTimeout time.Duration `env:"LOOPWORK_AGENT_TIMEOUT" default:"120s"`
	// TranscriptionMaxBytes is the largest recording accepted (bytes, or with K/M/G suffix).
	TranscriptionMaxBytes string `env:"LOOPWORK_TRANSCRIPTION_MAX_BYTES" default:"25M"`
	// TranscriptionMaxSeconds bounds how long a recording may last once decoded by the offline
	// recogniser (a few kilobytes of compressed silence can decode to hours); a longer one answers 413.
	TranscriptionMaxSeconds int `env:"LOOPWORK_TRANSCRIPTION_MAX_SECONDS" default:"600"`
	// TranscriptionPerMinute is how many transcriptions one organization may ask for a minute.
	TranscriptionPerMinute int `env:"LOOPWORK_TRANSCRIPTION_PER_MINUTE" default:"30"`
	// TranscriptionSlots is how many recordings the offline recogniser works on at once (each takes a
	// core for about as long as the recording lasts), and TranscriptionSlotsPerOrg how many of them one
	// organization may hold; the others wait, each organization in turn.
	TranscriptionSlots       int `env:"LOOPWORK_TRANSCRIPTION_SLOTS" default:"2"`
	TranscriptionSlotsPerOrg int `env:"LOOPWORK_TRANSCRIPTION_SLOTS_PER_ORG" default:"1"`
	// TrustedProxies lists the CIDRs of reverse proxies whose X-Forwarded-For is believed (comma-separated).
	TrustedProxies string `env:"LOOPWORK_TRUSTED_PROXIES"`
	// OTLPEndpoint turns tracing on: the base URL of an OpenTelemetry collector's OTLP/HTTP receiver (for
	// example http://collector:4318), whose /v1/traces receives the spans. OTLPTracesEndpoint, when set,
	// is the full URL spans go to instead. With both empty (the default) no span is recorded. The names
	// are OpenTelemetry's own, so a collector's usual environment configures loopwork too.
	OTLPEndpoint       string `env:"OTEL_EXPORTER_OTLP_ENDPOINT"`
	OTLPTracesEndpoint string `env:"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"`
	// OTLPProtocol is how spans are sent; only http/protobuf is spoken, and a collector set up for gRPC
	// (port 4317) is refused at start rather than sent to in vain.
	OTLPProtocol string `env:"OTEL_EXPORTER_OTLP_PROTOCOL" default:"http/protobuf"`
	// ServiceName names this service in its spans.
	ServiceName string `env:"OTEL_SERVICE_NAME" default:"loopwork"`
	// TraceSampleRatio is the share of traces started here that are recorded (0 to 1); a request whose
	// caller sent a traceparent header follows the caller's decision.
	TraceSampleRatio float64 `env:"LOOPWORK_TRACE_SAMPLE_RATIO" default:"1"`
}

// Setting describes one configuration entry, for `loopwork config` and error messages.
type Setting struct {
	Env, Default string
}

// FromEnv builds a Config from defaults overridden by the environment (getenv is os.Getenv in cmd/).
func FromEnv(getenv func(string) string) (Config, error) {
	var c Config
	var errs []error
	for _, f := range fields(&c) {
		raw := getenv(f.env)
		if raw == "" {
			raw = f.def
		}
		if err := f.set(raw); err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: %w", f.env, raw, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return c, err
	}
	return c, nil
}

// Validate checks the values together; the message names the setting that is wrong.
func (c Config) Validate() error {
	var errs []error
	if c.DatabaseURL != "" {
		if u, err := url.Parse(c.DatabaseURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			errs = append(errs, errors.New("DATABASE_URL: must be a postgres:// or postgresql:// URL"))
		}
	}
	if c.ReadDatabaseURL != "" {
		if u, err := url.Parse(c.ReadDatabaseURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			errs = append(errs, errors.New("LOOPWORK_READ_DATABASE_URL: must be a postgres:// or postgresql:// URL"))
		}
	}
	errs = append(errs, c.validateDocuments()...)
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		errs = append(errs, fmt.Errorf("LOOPWORK_ADDR=%q: must be host:port: %v", c.Addr, err))
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			errs = append(errs, fmt.Errorf("LOOPWORK_METRICS_ADDR=%q: must be host:port: %v", c.MetricsAddr, err))
		}
	}
	if c.DNSResolver != "" {
		if _, _, err := net.SplitHostPort(c.DNSResolver); err != nil {
			errs = append(errs, fmt.Errorf("LOOPWORK_DNS_RESOLVER=%q: must be host:port: %v", c.DNSResolver, err))
		}
	}
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || u.Scheme == "" || u.Host == "" {
			errs = append(errs, fmt.Errorf("LOOPWORK_PUBLIC_URL=%q: must be an absolute URL", c.PublicURL))
		}
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("LOOPWORK_LOG_LEVEL=%q: must be debug, info, warn or error", c.LogLevel))
	}
	switch c.LogFormat {
	case "json", "text":
	default:
		errs = append(errs, fmt.Errorf("LOOPWORK_LOG_FORMAT=%q: must be json or text", c.LogFormat))
	}
	if n, err := ParseBytes(c.BodyLimit); err != nil || n <= 0 {
		errs = append(errs, fmt.Errorf("LOOPWORK_BODY_LIMIT=%q: must be a positive size such as 10M", c.BodyLimit))
	}
	if n, err := ParseBytes(c.InboundMaxBytes); err != nil || n <= 0 {
		errs = append(errs, fmt.Errorf("LOOPWORK_INBOUND_MAX_BYTES=%q: must be a positive size such as 25M", c.InboundMaxBytes))
	}
	if c.InboundMaxSessions <= 0 {
		errs = append(errs, fmt.Errorf("LOOPWORK_INBOUND_MAX_SESSIONS=%d: must be positive", c.InboundMaxSessions))
	}
	if c.InboundSessionTimeout <= 0 {
		errs = append(errs, fmt.Errorf("LOOPWORK_INBOUND_SESSION_TIMEOUT=%s: must be positive", c.InboundSessionTimeout))
	}
	errs = append(errs, c.validateJQ()...)
	if n, err := ParseBytes(c.TranscriptionMaxBytes); err != nil || n <= 0 {
		errs = append(errs, fmt.Errorf("LOOPWORK_TRANSCRIPTION_MAX_BYTES=%q: must be a positive size such as 25M", c.TranscriptionMaxBytes))
	}
	if c.TranscriptionURL != "" {
		if u, err := url.Parse(c.TranscriptionURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("LOOPWORK_TRANSCRIPTION_URL=%q: must be an absolute http(s) URL", c.TranscriptionURL))
		}
	}
	if c.S3Endpoint != "" {
		if u, err := url.Parse(c.S3Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("LOOPWORK_S3_ENDPOINT=%q: must be an absolute http(s) URL", c.S3Endpoint))
		}
		if c.S3Bucket == "" {
			errs = append(errs, errors.New("LOOPWORK_S3_BUCKET: required with LOOPWORK_S3_ENDPOINT"))
		}
	}
	if _, err := c.ModelEndpoints(); err != nil {
		errs = append(errs, fmt.Errorf("LOOPWORK_MODELS: %v", err))
	}
	if eps, err := c.ModelEndpoints(); err == nil && c.AgentModel != "" {
		found := false
		for _, e := range eps {
			found = found || e.Model == c.AgentModel && e.BaseURL != ""
		}
		if !found {
			errs = append(errs, fmt.Errorf("LOOPWORK_AGENT_MODEL=%q: not a model of LOOPWORK_MODELS with a base_url", c.AgentModel))
		}
	}
	if c.TranscriptionMaxSeconds < 1 || c.TranscriptionMaxSeconds > 86400 {
		errs = append(errs, fmt.Errorf("LOOPWORK_TRANSCRIPTION_MAX_SECONDS=%d: must be between 1 and 86400", c.TranscriptionMaxSeconds))
	}
	if c.TranscriptionPerMinute < 1 {
		errs = append(errs, fmt.Errorf("LOOPWORK_TRANSCRIPTION_PER_MINUTE=%d: must be at least 1", c.TranscriptionPerMinute))
	}
	if c.TaskWorkers < 1 || c.TaskWorkers > 10000 {
		errs = append(errs, fmt.Errorf("LOOPWORK_TASK_WORKERS=%d: must be between 1 and 10000", c.TaskWorkers))
	}
	if c.TaskWorkersPerOrg < 0 || c.TaskWorkersPerOrg > max(c.TaskWorkers, 1) {
		errs = append(errs, fmt.Errorf("LOOPWORK_TASK_WORKERS_PER_ORG=%d: must be between 0 (half of LOOPWORK_TASK_WORKERS) and LOOPWORK_TASK_WORKERS", c.TaskWorkersPerOrg))
	}
	if c.TranscriptionSlots < 1 || c.TranscriptionSlots > 256 {
		errs = append(errs, fmt.Errorf("LOOPWORK_TRANSCRIPTION_SLOTS=%d: must be between 1 and 256", c.TranscriptionSlots))
	}
	if c.TranscriptionSlotsPerOrg < 1 || c.TranscriptionSlotsPerOrg > max(c.TranscriptionSlots, 1) {
		errs = append(errs, fmt.Errorf("LOOPWORK_TRANSCRIPTION_SLOTS_PER_ORG=%d: must be between 1 and LOOPWORK_TRANSCRIPTION_SLOTS", c.TranscriptionSlotsPerOrg))
	}
	if c.DBMaxOpenConns < 1 {
		errs = append(errs, fmt.Errorf("LOOPWORK_DB_MAX_OPEN_CONNS=%d: must be at least 1", c.DBMaxOpenConns))
	}
	if c.DBMaxIdleConns < 0 || c.DBMaxIdleConns > c.DBMaxOpenConns {
		errs = append(errs, fmt.Errorf("LOOPWORK_DB_MAX_IDLE_CONNS=%d: must be between 0 and LOOPWORK_DB_MAX_OPEN_CONNS", c.DBMaxIdleConns))
	}
	for _, d := range []struct {
		env string
		v   time.Duration
	}{
		{"LOOPWORK_READ_HEADER_TIMEOUT", c.ReadHeaderTimeout}, {"LOOPWORK_READ_TIMEOUT", c.ReadTimeout},
		{"LOOPWORK_WRITE_TIMEOUT", c.WriteTimeout}, {"LOOPWORK_IDLE_TIMEOUT", c.IdleTimeout},
		{"LOOPWORK_SHUTDOWN_TIMEOUT", c.ShutdownTimeout}, {"LOOPWORK_READINESS_TIMEOUT", c.ReadinessTimeout},
		{"LOOPWORK_TASK_LEASE", c.TaskLease},
	} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("%s=%s: must be positive", d.env, d.v))
		}
	}
	if c.EncryptionKey != "" {
		if k, err := base64.StdEncoding.DecodeString(c.EncryptionKey); err != nil || len(k) != 32 {
			errs = append(errs, errors.New("LOOPWORK_ENCRYPTION_KEY: must be 32 random bytes, base64-encoded (openssl rand -base64 32)"))
		}
	}
	for _, d := range []struct {
		env string
		v   time.Duration
	}{
		{"LOOPWORK_ACCESS_TOKEN_TTL", c.AccessTokenTTL}, {"LOOPWORK_REFRESH_TOKEN_TTL", c.RefreshTokenTTL},
		{"LOOPWORK_SIGNING_KEY_ROTATION", c.SigningKeyRotation}, {"LOOPWORK_INVITE_TTL", c.InviteTTL},
		{"LOOPWORK_RECOVERY_TTL", c.RecoveryTTL},
	} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("%s=%s: must be positive", d.env, d.v))
		}
	}
	if c.ExternalJWKSURL != "" {
		if u, err := url.Parse(c.ExternalJWKSURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			errs = append(errs, fmt.Errorf("LOOPWORK_EXTERNAL_JWKS_URL=%q: must be an http(s) URL", c.ExternalJWKSURL))
		}
		if c.ExternalIssuer == "" {
			errs = append(errs, errors.New("LOOPWORK_EXTERNAL_JWT_ISSUER: required with LOOPWORK_EXTERNAL_JWKS_URL"))
		}
	}
	if c.WebURL != "" {
		if u, err := url.Parse(c.WebURL); err != nil || u.Scheme == "" || u.Host == "" {
			errs = append(errs, fmt.Errorf("LOOPWORK_WEB_URL=%q: must be an absolute URL", c.WebURL))
		}
	}
	switch c.SMTPTLS {
	case "starttls", "tls", "none":
	default:
		errs = append(errs, fmt.Errorf("LOOPWORK_SMTP_TLS=%q: must be starttls, tls or none", c.SMTPTLS))
	}
	if c.SMTPPort < 1 || c.SMTPPort > 65535 {
		errs = append(errs, fmt.Errorf("LOOPWORK_SMTP_PORT=%d: must be a TCP port", c.SMTPPort))
	}
	if c.SignInLimitPerIP < 1 || c.SignInLimitPerEmail < 1 {
		errs = append(errs, errors.New("LOOPWORK_SIGNIN_LIMIT_PER_IP and LOOPWORK_SIGNIN_LIMIT_PER_EMAIL: must be at least 1"))
	}
	if _, err := parseCIDRs(c.OutboundAllow); err != nil {
		errs = append(errs, fmt.Errorf("LOOPWORK_OUTBOUND_ALLOW=%q: %v", c.OutboundAllow, err))
	}
	if _, err := parseCIDRs(c.TrustedProxies); err != nil {
		errs = append(errs, fmt.Errorf("LOOPWORK_TRUSTED_PROXIES=%q: %v", c.TrustedProxies, err))
	}
	errs = append(errs, c.validateTracing()...)
	return errors.Join(errs...)
}

func (c Config) validateTracing() []error {
	var errs []error
	for _, e := range []struct{ env, v string }{
		{"OTEL_EXPORTER_OTLP_ENDPOINT", c.OTLPEndpoint}, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", c.OTLPTracesEndpoint},
	} {
		if e.v == "" {
			continue
		}
		if u, err := url.Parse(e.v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("%s=%q: must be an absolute http(s) URL", e.env, e.v))
		}
	}
	if c.OTLPProtocol != "http/protobuf" {
		errs = append(errs, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%q: only http/protobuf is supported", c.OTLPProtocol))
	}
	if c.TraceSampleRatio < 0 || c.TraceSampleRatio > 1 {
		errs = append(errs, fmt.Errorf("LOOPWORK_TRACE_SAMPLE_RATIO=%v: must be between 0 and 1", c.TraceSampleRatio))
	}
	return errs
}

// OTLPTracesURL is where spans are sent, or "" when tracing is off: OTLPTracesEndpoint as it is, else
// OTLPEndpoint's /v1/traces, as OpenTelemetry's exporters read the two.
func (c Config) OTLPTracesURL() string {
	if c.OTLPTracesEndpoint != "" {
		return c.OTLPTracesEndpoint
	}
	if c.OTLPEndpoint != "" {
		return strings.TrimRight(c.OTLPEndpoint, "/") + "/v1/traces"
	}
	return ""
}

// OutboundAllowNets parses OutboundAllow.
func (c Config) OutboundAllowNets() ([]*net.IPNet, error) { return parseCIDRs(c.OutboundAllow) }

// TrustedProxyNets parses TrustedProxies.
func (c Config) TrustedProxyNets() ([]*net.IPNet, error) { return parseCIDRs(c.TrustedProxies) }

func parseCIDRs(list string) ([]*net.IPNet, error) {
	var out []*net.IPNet
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		_, n, err := net.ParseCIDR(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR such as 10.0.0.0/8", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// EncryptionKeyBytes is the decoded EncryptionKey; Validate guarantees it decodes when set.
func (c Config) EncryptionKeyBytes() []byte {
	k, _ := base64.StdEncoding.DecodeString(c.EncryptionKey)
	return k
}

// RequireSecrets reports what serve needs beyond the database.
func (c Config) RequireSecrets() error {
	if c.EncryptionKey == "" {
		return errors.New("LOOPWORK_ENCRYPTION_KEY: not set (generate one with: openssl rand -base64 32)")
	}
	return nil
}

// RequireDatabase reports the missing DATABASE_URL for commands that need it.
func (c Config) RequireDatabase() error {
	if c.DatabaseURL == "" {
		return errors.New("DATABASE_URL: not set (for example postgres://user@127.0.0.1:5432/loopwork?sslmode=disable)")
	}
	return nil
}

// ModelEndpoint is one configured language model endpoint.
type ModelEndpoint struct {
	Model    string `json:"model"`
	Provider string `json:"provider"`
	Region   string `json:"region"`
	Location string `json:"location"`
	BaseURL  string `json:"base_url"`
	// APIKey is sent as the bearer token to BaseURL; an llm task may send its own credential's instead.
	APIKey string `json:"api_key"`
}

// ModelEndpoints reads Models: every entry needs a model and a provider, and a region of eu or global
// (global when left out).
func (c Config) ModelEndpoints() ([]ModelEndpoint, error) {
	if strings.TrimSpace(c.Models) == "" {
		return nil, nil
	}
	var out []ModelEndpoint
	dec := json.NewDecoder(strings.NewReader(c.Models))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("not a JSON array of endpoints: %v", err)
	}
	for i := range out {
		e := &out[i]
		if e.Model == "" || e.Provider == "" {
			return nil, fmt.Errorf("entry %d: model and provider are required", i)
		}
		if e.Region == "" {
			e.Region = "global"
		}
		if e.Region != "eu" && e.Region != "global" {
			return nil, fmt.Errorf("entry %d: region must be eu or global, not %q", i, e.Region)
		}
	}
	return out, nil
}

// TaskWorkersPerOrgValue is TaskWorkersPerOrg with its default (half of TaskWorkers, at least one)
// applied.
func (c Config) TaskWorkersPerOrgValue() int {
	if c.TaskWorkersPerOrg > 0 {
		return c.TaskWorkersPerOrg
	}
	return max(c.TaskWorkers/2, 1)
}

// TranscriptionMaxBytesValue is TranscriptionMaxBytes in bytes; Validate guarantees it parses.
func (c Config) TranscriptionMaxBytesValue() int64 {
	n, _ := ParseBytes(c.TranscriptionMaxBytes)
	return n
}

// BodyLimitBytes is BodyLimit in bytes; Validate guarantees it parses.
func (c Config) BodyLimitBytes() int64 {
	n, _ := ParseBytes(c.BodyLimit)
	return n
}

// ParseBytes reads sizes such as 512, 64K, 10M or 1G (powers of 1024).
func ParseBytes(s string) (int64, error) {
	s = strings.TrimSpace(strings.ToUpper(s))
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("not a size: %w", err)
	}
	return n * mult, nil
}

// InboundMaxBytesValue is InboundMaxBytes in bytes; Validate guarantees it parses.
func (c Config) InboundMaxBytesValue() int64 {
	n, _ := ParseBytes(c.InboundMaxBytes)
	return n
}

// validateJQ checks the bounds of tenants' jq programs.
func (c Config) validateJQ() []error {
	var errs []error
	if c.JQWorkers < 0 {
		errs = append(errs, fmt.Errorf("LOOPWORK_JQ_WORKERS=%d: must be 0 (twice the CPUs) or more", c.JQWorkers))
	}
	if n, err := ParseBytes(c.JQMemory); err != nil || n < 16<<20 {
		errs = append(errs, fmt.Errorf("LOOPWORK_JQ_MEMORY=%q: must be a size of at least 16M", c.JQMemory))
	}
	if n, err := ParseBytes(c.JQMaxResult); err != nil || n <= 0 {
		errs = append(errs, fmt.Errorf("LOOPWORK_JQ_MAX_RESULT=%q: must be a positive size such as 16M", c.JQMaxResult))
	}
	if c.JQMaxTime <= 0 {
		errs = append(errs, fmt.Errorf("LOOPWORK_JQ_MAX_TIME=%s: must be positive", c.JQMaxTime))
	}
	if c.JQShortTime <= 0 || c.JQShortTime > c.JQMaxTime {
		errs = append(errs, fmt.Errorf("LOOPWORK_JQ_SHORT_TIME=%s: must be positive and at most LOOPWORK_JQ_MAX_TIME", c.JQShortTime))
	}
	return errs
}
