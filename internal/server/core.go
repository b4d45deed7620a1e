package server

import (
	"context"
	"fmt"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/blob"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/engine/tasks"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/mail"
	"github.com/loopwork/loopwork/internal/memo"
	"github.com/loopwork/loopwork/internal/monitor"
	"github.com/loopwork/loopwork/internal/netguard"
	"github.com/loopwork/loopwork/internal/platform/credentials"
	"github.com/loopwork/loopwork/internal/queue"
	"github.com/loopwork/loopwork/internal/ratelimit"
	"github.com/loopwork/loopwork/internal/secret"
	"github.com/loopwork/loopwork/internal/v1/access"
)

// core is what the wiring of every area shares: the configuration, and the parts built from it and the
// process alone, before any service exists.
type core struct {
	d Deps
	// cfg is d.Config with PublicURL resolved; the wiring reads it, never d.Config.
	cfg config.Config

	apiSpec, v1Spec *openapi3.T
	box             *secret.Box
	// secrets opens stored credentials; it holds no state, so every area uses the same one.
	secrets  *credentials.Opener
	guard    *netguard.Guard
	outbound *http.Client
	keys     *auth.KeyStore
	tokens   *auth.Tokens
	// Principals and app grants are memoised; the bus forgets them when the database says they changed.
	bus *memo.Bus
	// authenticator checks credentials on the operators' routes, always for real; authenticate checks
	// them on the contracts' operations, where a test may replace it.
	authenticator *auth.Authenticator
	authenticate  httpx.Authenticator
	metrics       *monitor.Metrics
	grants        *access.Grants
	limiter       *ratelimit.Limiter
	files         blob.Store
	sender        mail.Sender
	registry      *tasks.Registry
	endpoints     []config.ModelEndpoint

	// workers collects, area by area, the workers the queue runs; queue is the client built from them
	// once every area has added its own (wireQueue), nil until then.
	workers *river.Workers
	queue   *queue.Client
	// sweeps are the leader's sweeps, run while this process leads (see queue.Sweeps).
	sweeps *queue.Sweeps
}

// newCore checks the configuration and builds the shared parts. It fails on a broken embedded contract
// or an unusable configuration.
func newCore(d Deps) (*core, error) {
	c := &core{d: d, cfg: d.Config, workers: river.NewWorkers()}
	cfg := &c.cfg
	if err := cfg.RequireSecrets(); err != nil {
		return nil, err
	}
	cfg.PublicURL = publicURL(*cfg, d.Logger)
	var err error
	if c.apiSpec, err = httpx.LoadSpec(platformapi.OpenAPIJSON); err != nil {
		return nil, fmt.Errorf("load /api contract: %w", err)
	}
	if c.v1Spec, err = httpx.LoadSpec(v1api.OpenAPIJSON); err != nil {
		return nil, fmt.Errorf("load /v1 contract: %w", err)
	}
	if c.box, err = secret.NewBox(cfg.EncryptionKeyBytes()); err != nil {
		return nil, err
	}
	c.secrets = credentials.NewOpener(d.DB, c.box)
	allow, err := cfg.OutboundAllowNets()
	if err != nil {
		return nil, err
	}
	c.guard = netguard.New(allow)
	c.outbound = d.OutboundClient
	if c.outbound == nil {
		c.outbound = c.guard.Client(netguard.Options{})
	}

	c.keys = auth.NewKeyStore(d.DB, c.box, cfg.SigningKeyRotation, cfg.AccessTokenTTL)
	var external *auth.ExternalIssuer
	if cfg.ExternalJWKSURL != "" {
		external = &auth.ExternalIssuer{JWKSURL: cfg.ExternalJWKSURL, Issuer: cfg.ExternalIssuer,
			Audience: cfg.ExternalAudience, Client: c.outbound}
	}
	c.tokens = auth.NewTokens(c.keys, cfg.JWTIssuer, cfg.JWTAudience, cfg.AccessTokenTTL, external)
	c.bus = memo.NewBus()
	c.authenticator = auth.NewAuthenticator(d.DB, c.tokens, cfg.AnonKey, c.bus)
	c.authenticate = d.Authenticator
	if c.authenticate == nil {
		c.authenticate = c.authenticator.Authenticate
	}
	c.metrics = monitor.New(d.DB.DB, d.Logger)
	c.grants = access.NewGrants(d.DB, c.bus)
	c.limiter = ratelimit.New(d.DB)

	if c.files = d.Blob; c.files == nil {
		if c.files, err = openBlob(*cfg); err != nil {
			return nil, err
		}
	}
	sender := d.MailSender
	if sender == nil {
		if sender, err = mail.NewSender(*cfg, d.Logger); err != nil {
			return nil, err
		}
	}
	c.sender = c.metrics.Mail(sender)
	c.registry = tasks.Builtin()
	if c.endpoints, err = cfg.ModelEndpoints(); err != nil {
		return nil, err
	}
	return c, nil
}

// wireQueue builds the queue client from the workers the areas have added and their services' periodic
// jobs, and hands it to the services built before it (and, through c.queue, to the email executor,
// which looks it up when it runs).
//
// The services below keep a SetQueue setter because River allows no other order: its client is built
// from the complete set of workers, each worker belongs to its service, and each of these services
// inserts jobs not only from its workers (which could take the client from the job's context) but
// also while serving requests, so it needs the client itself. The services that only insert jobs are
// built after this, with the client in their Deps.
func wireQueue(c *core, eng *engineArea, v1a *v1Area, pa *platformArea) (*queue.Client, error) {
	cfg := c.cfg
	// The sweeps run on the leader and pace themselves by what they find (queue.Sweep); as periodic
	// River jobs at fixed intervals they cost an idle server some 300 transactions a minute.
	sweeps := append(eng.engine.Sweeps(), v1a.lifecycle.Sweep(), v1a.exports.Sweep(), v1a.measurerops.Sweep(), pa.sso.Sweep())
	sweeps = append(sweeps, eng.documents.Sweeps()...)
	c.sweeps = queue.NewSweeps(c.d.Logger, sweeps...)
	q, err := queue.New(c.d.DB.DB, cfg.DatabaseURL, c.workers, queue.Options{Logger: c.d.Logger, Sweeps: c.sweeps,
		MaxWorkers: cfg.TaskWorkers, Middleware: append(c.d.Tracing.River(), c.metrics.RiverMiddleware())})
	if err != nil {
		return nil, fmt.Errorf("background queue: %w", err)
	}
	c.queue = q
	eng.engine.SetQueue(q)
	v1a.lifecycle.SetQueue(q)
	v1a.exports.SetQueue(q)
	v1a.measurerops.SetQueue(q)
	eng.documents.SetQueue(q)
	eng.reviews.SetQueue(q)
	return q, nil
}

// openBlob opens the configured file storage: a bucket of an S3-compatible service, or local disk
// under StorageDir with links to the server's own signed download route.
func openBlob(cfg config.Config) (blob.Store, error) {
	if cfg.S3Endpoint != "" {
		return blob.NewS3(blob.S3Config{Endpoint: cfg.S3Endpoint, Bucket: cfg.S3Bucket, Region: cfg.S3Region,
			AccessKey: cfg.S3AccessKey, SecretKey: cfg.S3SecretKey, PathStyle: cfg.S3PathStyle})
	}
	base := func(context.Context) string { return cfg.PublicURL + downloadRoute }
	return blob.NewLocal(cfg.StorageDir, blob.NewSigner(cfg.EncryptionKeyBytes()), base)
}

// signerOf is the key of a store whose links the server serves itself.
func signerOf(files blob.Store) *blob.Signer {
	if l, ok := files.(*blob.Local); ok {
		return l.Signer()
	}
	return nil
}

// downloadRoute serves signed links to locally stored files (downloadStorageObject).
const downloadRoute = "/api/storage/download/"

func webURL(cfg config.Config) string {
	if cfg.WebURL != "" {
		return cfg.WebURL
	}
	return cfg.PublicURL
}
