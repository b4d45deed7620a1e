// Package server assembles the HTTP stack: middleware, both interfaces with their request validators,
// the authenticator, the background queue, and the services that implement the operations.
package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/riverqueue/river"
	"riverqueue.com/riverui"

	"github.com/loopwork/loopwork/db/migrations"
	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/blob"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/engine/jqrun"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/engine/tasks"
	"github.com/loopwork/loopwork/internal/fairshare"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/llm"
	"github.com/loopwork/loopwork/internal/mail"
	"github.com/loopwork/loopwork/internal/memo"
	"github.com/loopwork/loopwork/internal/monitor"
	"github.com/loopwork/loopwork/internal/netguard"
	"github.com/loopwork/loopwork/internal/platform/apikeys"
	"github.com/loopwork/loopwork/internal/platform/authn"
	"github.com/loopwork/loopwork/internal/platform/billing"
	"github.com/loopwork/loopwork/internal/platform/conversations"
	"github.com/loopwork/loopwork/internal/platform/credentials"
	"github.com/loopwork/loopwork/internal/platform/docs"
	"github.com/loopwork/loopwork/internal/platform/documents"
	"github.com/loopwork/loopwork/internal/platform/emailtasks"
	"github.com/loopwork/loopwork/internal/platform/executions"
	"github.com/loopwork/loopwork/internal/platform/flows"
	"github.com/loopwork/loopwork/internal/platform/health"
	"github.com/loopwork/loopwork/internal/platform/integrations"
	"github.com/loopwork/loopwork/internal/platform/models"
	"github.com/loopwork/loopwork/internal/platform/orgs"
	"github.com/loopwork/loopwork/internal/platform/reviews"
	"github.com/loopwork/loopwork/internal/platform/sqldatabases"
	"github.com/loopwork/loopwork/internal/platform/sso"
	"github.com/loopwork/loopwork/internal/platform/storage"
	"github.com/loopwork/loopwork/internal/platform/taskexecutions"
	"github.com/loopwork/loopwork/internal/platform/taskmarks"
	"github.com/loopwork/loopwork/internal/platform/transcription"
	"github.com/loopwork/loopwork/internal/platform/users"
	"github.com/loopwork/loopwork/internal/queue"
	"github.com/loopwork/loopwork/internal/queueui"
	"github.com/loopwork/loopwork/internal/ratelimit"
	"github.com/loopwork/loopwork/internal/secret"
	"github.com/loopwork/loopwork/internal/speech"
	"github.com/loopwork/loopwork/internal/tracing"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/apimetrics"
	"github.com/loopwork/loopwork/internal/v1/apps"
	"github.com/loopwork/loopwork/internal/v1/baseline"
	"github.com/loopwork/loopwork/internal/v1/bulk"
	"github.com/loopwork/loopwork/internal/v1/exports"
	"github.com/loopwork/loopwork/internal/v1/jobs"
	"github.com/loopwork/loopwork/internal/v1/labeling"
	"github.com/loopwork/loopwork/internal/v1/lifecycle"
	"github.com/loopwork/loopwork/internal/v1/measurer"
	"github.com/loopwork/loopwork/internal/v1/measuring"
	"github.com/loopwork/loopwork/internal/v1/members"
	"github.com/loopwork/loopwork/internal/v1/tags"
	"github.com/loopwork/loopwork/internal/v1/workers"
)

// Deps are what the server needs from the process. Optional fields replace a part for tests.
type Deps struct {
	Config config.Config
	DB     *sqlx.DB
	// ReadDB is a read replica's pool for the /v1 job lists and counts (nil: DB).
	ReadDB *sqlx.DB
	Logger *slog.Logger
	// Authenticator replaces the real one (nil: JWTs and API keys as configured).
	Authenticator httpx.Authenticator
	// MailSender replaces the configured one (nil: SMTP when configured, else the log).
	MailSender mail.Sender
	// OutboundClient replaces the SSRF-guarded client for tenant-controlled URLs.
	OutboundClient *http.Client
	// Blob replaces the configured file storage (nil: local disk under StorageDir).
	Blob blob.Store
	// Tracing records the spans of requests, River jobs and task attempts (nil: none). The pool's
	// statements are traced when DB was opened with its Connector.
	Tracing *tracing.Tracing
	// JQ replaces the pool built from the LOOPWORK_JQ_ settings (a benchmark's in-process evaluator,
	// measured beside the real pool); the server closes it when it stops.
	JQ *jqrun.Pool
}

// Server is the whole application: the HTTP handler and the background workers.
type Server struct {
	// inbound runs the SMTP listener of e-mail tasks when one is configured (inboundAddr).
	inbound     *emailtasks.Service
	inboundAddr string
	listener    *emailtasks.Listener
	engine      *run.Engine
	jq          *jqrun.Pool
	echo        *echo.Echo
	health      *health.Service
	queue       *queue.Client
	tokens      *auth.Tokens
	bus         *memo.Bus
	dsn         string
	logger      *slog.Logger
	// metrics are served on the main listener to backoffice callers, or on metricsAddr when set.
	metrics       *monitor.Metrics
	metricsAddr   string
	metricsServer *metricsListener
	riverUI       *riverui.Handler
}

// platform implements the /api interface: each area service contributes its operations, and whatever
// no service provides yet falls through to the generated 501 answers one embedding level further down.
type platform struct {
	*healthService
	*docsService
	*authnService
	*orgsService
	*usersService
	*apikeysService
	*ssoService
	*billingService
	*flowsService
	*executionsService
	*taskmarksService
	*taskexecutionsService
	*reviewsService
	*credentialsService
	*integrationsService
	*sqldatabasesService
	*transcriptionService
	*storageService
	*documentsService
	*emailtasksService
	*conversationsService
	*modelsService
	platformPending
}

// Aliases give the embedded services distinct field names.
type (
	healthService     = health.Service
	docsService       = docs.Service
	authnService      = authn.Service
	orgsService       = orgs.Service
	usersService      = users.Service
	apikeysService    = apikeys.Service
	ssoService        = sso.Service
	billingService    = billing.Service
	flowsService      = flows.Service
	executionsService = executions.Service
	taskmarksService  = taskmarks.Service

	taskexecutionsService = taskexecutions.Service
	reviewsService        = reviews.Service
	credentialsService    = credentials.Service
	integrationsService   = integrations.Service
	sqldatabasesService   = sqldatabases.Service
	transcriptionService  = transcription.Service
	storageService        = storage.Service
	documentsService      = documents.Service
	emailtasksService     = emailtasks.Service
	conversationsService  = conversations.Service
	modelsService         = models.Service
)

type platformPending struct{ platformapi.Unimplemented }

// v1 implements the /v1 interface the same way.
type v1 struct {
	*appsService
	*tagsService
	*membersService
	*workersService
	*jobsService
	*bulkService
	*measurerService
	*exportsService
	*labelingService
	*baselineService
	*apimetricsService
	*measuringService
	v1Pending
}

type (
	appsService       = apps.Service
	tagsService       = tags.Service
	membersService    = members.Service
	workersService    = workers.Service
	measurerService   = measurer.Service
	exportsService    = exports.Service
	labelingService   = labeling.Service
	baselineService   = baseline.Service
	apimetricsService = apimetrics.Service
	measuringService  = measuring.Service
	jobsService       = jobs.Service
	bulkService       = bulk.Service
)

type v1Pending struct{ v1api.Unimplemented }

var (
	_ platformapi.StrictServerInterface = platform{}
	_ v1api.StrictServerInterface       = v1{}
)

// New builds the server. It fails on a broken embedded contract or an unusable configuration.
func New(d Deps) (*Server, error) {
	cfg := d.Config
	if err := cfg.RequireSecrets(); err != nil {
		return nil, err
	}
	cfg.PublicURL = publicURL(cfg, d.Logger)
	apiSpec, err := httpx.LoadSpec(platformapi.OpenAPIJSON)
	if err != nil {
		return nil, fmt.Errorf("load /api contract: %w", err)
	}
	v1Spec, err := httpx.LoadSpec(v1api.OpenAPIJSON)
	if err != nil {
		return nil, fmt.Errorf("load /v1 contract: %w", err)
	}
	box, err := secret.NewBox(cfg.EncryptionKeyBytes())
	if err != nil {
		return nil, err
	}
	allow, err := cfg.OutboundAllowNets()
	if err != nil {
		return nil, err
	}
	guard := netguard.New(allow)
	outbound := d.OutboundClient
	if outbound == nil {
		outbound = guard.Client(netguard.Options{})
	}

	keys := auth.NewKeyStore(d.DB, box, cfg.SigningKeyRotation, cfg.AccessTokenTTL)
	var external *auth.ExternalIssuer
	if cfg.ExternalJWKSURL != "" {
		external = &auth.ExternalIssuer{JWKSURL: cfg.ExternalJWKSURL, Issuer: cfg.ExternalIssuer,
			Audience: cfg.ExternalAudience, Client: outbound}
	}
	tokens := auth.NewTokens(keys, cfg.JWTIssuer, cfg.JWTAudience, cfg.AccessTokenTTL, external)
	// Principals and app grants are memoised; the bus forgets them when the database says they changed.
	bus := memo.NewBus()
	// The operators' routes always check credentials for real, also when a test replaces the
	// authenticator of the contracts' operations.
	authenticator := auth.NewAuthenticator(d.DB, tokens, cfg.AnonKey, bus)
	authenticate := d.Authenticator
	if authenticate == nil {
		authenticate = authenticator.Authenticate
	}
	metrics := monitor.New(d.DB.DB, d.Logger)
	grants := access.NewGrants(d.DB, bus)

	files := d.Blob
	if files == nil {
		if files, err = openBlob(cfg); err != nil {
			return nil, err
		}
	}

	sender := d.MailSender
	if sender == nil {
		if sender, err = mail.NewSender(cfg, d.Logger); err != nil {
			return nil, err
		}
	}
	sender = metrics.Mail(sender)
	registry := tasks.Builtin()
	var q *queue.Client // built below, with the engine's workers; the email executor reads it when it runs
	// Human review needs the engine (to finish the attempts that wait for reviews) and the engine
	// needs its executor, so the service learns of the engine and the queue once they exist.
	reviewsSvc := reviews.New(reviews.Deps{DB: d.DB})
	endpoints, err := cfg.ModelEndpoints()
	if err != nil {
		return nil, err
	}
	documentsSvc := documents.New(documents.Deps{DB: d.DB, DatabaseURL: cfg.DatabaseURL, DocumentsURL: cfg.DocumentsURL(),
		OwnCluster: cfg.DocumentsDatabaseURL == "", Files: files, Box: box, Secrets: credentials.NewOpener(d.DB, box), Guard: guard,
		Logger: d.Logger, Limits: documents.Limits{Connections: cfg.DocumentsConnectionLimit,
			StatementTimeout: cfg.SQLStatementTimeout, QuotaBytes: int64(cfg.DocumentsQuotaMB) << 20}})
	jqPool := d.JQ
	if jqPool == nil {
		if jqPool, err = newJQPool(cfg); err != nil {
			return nil, err
		}
	}
	jq := executors.JQ{Pool: jqPool, Template: cfg.JQShortTime, Max: cfg.JQMaxTime}
	builtin := builtinExecutors(jq, outbound, executors.MailDeps{Queue: func() *queue.Client { return q }, Domain: mail.Domain(cfg), JQ: jq},
		reviewsSvc.Executor(), documentsSvc.SQLConnector(), executors.SQLLimits{MaxRows: cfg.SQLMaxRows,
			StatementTimeout: cfg.SQLStatementTimeout}, spillTo(files), credentialsFor(credentials.NewOpener(d.DB, box)),
		modelsOf(endpoints))
	// A task type the registry declares but nothing runs would pass validation and fail at run time:
	// such a server does not start.
	if err := builtin.Check(registry, run.External); err != nil {
		return nil, err
	}
	execs := metrics.Executors(builtin)
	engine := run.New(run.Deps{DB: d.DB, Registry: registry, Executors: execs, Logger: d.Logger, Lease: cfg.TaskLease,
		Workers: cfg.TaskWorkers, WorkersPerOrg: cfg.TaskWorkersPerOrgValue(), Tracer: d.Tracing.Provider(), JQ: jqPool, EdgeTime: cfg.JQShortTime})
	reviewsSvc.SetEngine(engine)
	jobWorkers := river.NewWorkers()
	engine.Register(jobWorkers)
	// PENDING jobs are admitted, and jobs expire, in the background; an execution of a job that ends
	// makes room for the next of its app.
	lifecycleSvc := lifecycle.New(d.DB, engine, d.Logger, cfg.TaskLease)
	lifecycleSvc.Register(jobWorkers)
	engine.OnEnd(lifecycleSvc.ExecutionEnded)
	reviewsSvc.Register(jobWorkers)
	river.AddWorker(jobWorkers, mail.NewWorker(d.DB, sender, d.Logger))
	river.AddWorker(jobWorkers, bulk.NewWorker(d.DB, d.Logger))
	exportsSvc := exports.New(exports.Deps{DB: d.DB, Grants: grants, Files: files, Logger: d.Logger,
		Silence: max(2*cfg.TaskLease, 10*time.Second), Observe: metrics.Export})
	exportsSvc.Register(jobWorkers)
	jobsSvc := jobs.New(jobs.Deps{DB: d.DB, ReadDB: d.ReadDB, Grants: grants, Engine: engine, Admission: lifecycleSvc, Reviews: reviewsSvc})
	measuringSvc := measuring.New(measuring.Deps{DB: d.DB, Grants: grants, Jobs: jobsSvc, Logger: d.Logger})
	measuringSvc.Register(jobWorkers)
	documentsSvc.Register(jobWorkers)
	// Verified single sign-on domains are checked again daily in the background.
	limiter := ratelimit.New(d.DB)
	ssoSvc := sso.New(sso.Deps{DB: d.DB, HTTPClient: outbound, Limiter: limiter, Resolver: sso.NewResolver(cfg.DNSResolver),
		Logger: d.Logger})
	ssoSvc.Register(jobWorkers)
	periodic := append(engine.PeriodicJobs(), lifecycleSvc.PeriodicJobs()...)
	q, err = queue.New(d.DB.DB, cfg.DatabaseURL, jobWorkers, queue.Options{Logger: d.Logger,
		Periodic: append(append(append(append(periodic, exportsSvc.PeriodicJobs()...), measuringSvc.PeriodicJobs()...),
			documentsSvc.PeriodicJobs()...), ssoSvc.PeriodicJobs()...), MaxWorkers: cfg.TaskWorkers,
		Middleware: append(d.Tracing.River(), metrics.RiverMiddleware())})
	if err != nil {
		return nil, fmt.Errorf("background queue: %w", err)
	}
	engine.SetQueue(q)
	lifecycleSvc.SetQueue(q)
	exportsSvc.SetQueue(q)
	measuringSvc.SetQueue(q)
	documentsSvc.SetQueue(q)
	reviewsSvc.SetQueue(q)
	credentialsSvc := credentials.New(credentials.Deps{DB: d.DB, Box: box})
	modelsSvc := models.New(endpoints)

	migrationState := func(ctx context.Context) (bool, error) {
		p, err := migrations.NewProvider(d.DB.DB, nil)
		if err != nil {
			return false, err
		}
		return p.HasPending(ctx)
	}
	hs := health.New(d.DB, migrationState, cfg.ReadinessTimeout, apiSpec.Info.Version)
	ds, err := docs.New(platformapi.OpenAPIJSON, v1api.SwaggerJSON, v1api.OpenAPIJSON, []docs.Spec{
		{Name: "/api — workflow platform", URL: "/api/openapi.json"},
		{Name: "/v1 — apps and jobs", URL: "/v1/openapi.json"},
	})
	if err != nil {
		return nil, err
	}
	var agentModel llm.Provider
	if cfg.AgentModel != "" {
		agentModel, _, _ = modelsOf(endpoints)(cfg.AgentModel, "")
	}
	flowsSvc := flows.New(flows.Deps{DB: d.DB, Registry: registry, Engine: engine,
		Source: flows.NewSource(d.DB, modelsSvc.TaskModels()...)})
	inboundDomain := cfg.InboundDomain
	if inboundDomain == "" {
		inboundDomain = mail.Domain(cfg)
	}
	emailtasksSvc := emailtasks.New(emailtasks.Deps{DB: d.DB, Engine: engine, Files: files, Domain: inboundDomain,
		MaxBytes: cfg.InboundMaxBytesValue(), MaxSessions: cfg.InboundMaxSessions, SessionTimeout: cfg.InboundSessionTimeout,
		Logger: d.Logger})
	transcriber, transcriberSlots := speechBackend(cfg)
	api := platform{
		healthService: hs,
		docsService:   ds,
		authnService: authn.New(authn.Deps{DB: d.DB, Keys: keys, Tokens: tokens, Limiter: limiter,
			AnonKey: cfg.AnonKey, RefreshTTL: cfg.RefreshTokenTTL, PerIP: cfg.SignInLimitPerIP, PerEmail: cfg.SignInLimitPerEmail}),
		orgsService: orgs.New(orgs.Deps{DB: d.DB}),
		usersService: users.New(users.Deps{DB: d.DB, Queue: q, Limiter: limiter,
			InviteTTL: cfg.InviteTTL, RecoveryTTL: cfg.RecoveryTTL, WebURL: webURL(cfg)}),
		apikeysService: apikeys.New(apikeys.Deps{DB: d.DB}),
		ssoService:     ssoSvc,
		billingService: billing.New(billing.Deps{DB: d.DB}),
		flowsService:   flowsSvc,
		conversationsService: conversations.New(conversations.Deps{DB: d.DB, Flows: flowsSvc, Registry: registry,
			Limiter: limiter, PerMinute: cfg.AgentPerMinute, Timeout: cfg.AgentTimeout, Logger: d.Logger,
			Model: agentModel, ModelName: cfg.AgentModel}),
		executionsService: executions.New(executions.Deps{DB: d.DB, Engine: engine}),
		taskmarksService:  taskmarks.New(taskmarks.Deps{DB: d.DB}),

		taskexecutionsService: taskexecutions.New(taskexecutions.Deps{DB: d.DB, Engine: engine}),
		reviewsService:        reviewsSvc,
		credentialsService:    credentialsSvc,
		sqldatabasesService: sqldatabases.New(sqldatabases.Deps{DB: d.DB, Secrets: credentials.NewOpener(d.DB, box),
			Credentials: credentialsSvc, Guard: guard, Limiter: limiter}),
		modelsService:     modelsSvc,
		documentsService:  documentsSvc,
		emailtasksService: emailtasksSvc,
		storageService:    storage.New(storage.Deps{Files: files, Signer: signerOf(files)}),
		transcriptionService: transcription.New(transcription.Deps{Backend: transcriber, Slots: transcriberSlots,
			MaxBytes: cfg.TranscriptionMaxBytesValue(), MaxSeconds: cfg.TranscriptionMaxSeconds, Limiter: limiter,
			PerMinute: cfg.TranscriptionPerMinute}),
		integrationsService: integrations.New(integrations.Deps{DB: d.DB, Registry: registry,
			Secrets: credentials.NewOpener(d.DB, box), Guard: guard}),
	}
	jobsAPI := v1{
		appsService:       apps.New(apps.Deps{DB: d.DB, Grants: grants, Queue: q, Admission: lifecycleSvc}),
		tagsService:       tags.New(tags.Deps{DB: d.DB, Grants: grants}),
		membersService:    members.New(members.Deps{DB: d.DB, Grants: grants}),
		workersService:    workers.New(workers.Deps{DB: d.DB, Grants: grants}),
		jobsService:       jobsSvc,
		bulkService:       bulk.New(bulk.Deps{DB: d.DB, Grants: grants, Queue: q}),
		measurerService:   measurer.New(measurer.Deps{DB: d.DB, Grants: grants}),
		exportsService:    exportsSvc,
		labelingService:   labeling.New(labeling.Deps{DB: d.DB, Grants: grants}),
		baselineService:   baseline.New(baseline.Deps{DB: d.DB, Grants: grants}),
		apimetricsService: apimetrics.New(apimetrics.Deps{DB: d.DB, Grants: grants}),
		measuringService:  measuringSvc,
	}

	proxies, err := cfg.TrustedProxyNets()
	if err != nil {
		return nil, err
	}
	e := httpx.NewEcho(httpx.EchoOptions{
		Logger: d.Logger, BodyLimit: cfg.BodyLimit, Uploads: []httpx.RouteLimit{
			// A recording's limit is its own; the form around it adds a little.
			{Route: "POST /api/agent/transcription", Limit: cfg.TranscriptionMaxBytesValue() + 1<<20,
				Setting: "LOOPWORK_TRANSCRIPTION_MAX_BYTES"},
			// A CSV file of a document may have 100 MB, and the form around it a little more.
			{Route: "POST /api/database/:db_id/upload", Limit: documents.MaxBytes + 1<<20, Setting: "the limit of CSV files"},
			{Route: "POST /api/database/:db_id/upload/preview", Limit: documents.MaxBytes + 1<<20, Setting: "the limit of CSV files"},
		}, CORSOrigins: cfg.CORSOrigins, PublicURL: cfg.PublicURL,
		TrustedProxies: proxies,
	})
	apiValidator := httpx.NewValidator(apiSpec, httpx.Style422, authenticate)
	apiRoutes := routeWith{e, []func(string, string) echo.MiddlewareFunc{
		forgetOnWrite(bus, apiValidator.OperationID),
		// A form keeps the order of the parameters it is built for, which a decoded map forgets.
		httpx.KeepBodyFor("POST /api/integrations/ui-schema"),
		apiValidator.For,
		httpx.NewQueryGuard(apiSpec, httpx.Style422).For,
		func(string, string) echo.MiddlewareFunc { return httpx.TextGuard(httpx.Style422) },
	}}
	platformapi.RegisterHandlers(apiRoutes, platformapi.NewStrictHandler(api, nil))
	// /v1 answers X-Fields masks; the mask is read after authentication and validation, so a caller
	// who may not make the request learns nothing from a malformed one.
	xfields := httpx.XFields()
	v1Validator := httpx.NewValidator(v1Spec, httpx.Style400, authenticate)
	v1Routes := routeWith{e, []func(string, string) echo.MiddlewareFunc{
		forgetOnWrite(bus, v1Validator.OperationID),
		v1Validator.For,
		httpx.NewQueryGuard(v1Spec, httpx.Style400).For,
		func(string, string) echo.MiddlewareFunc { return httpx.TextGuard(httpx.Style400) },
		func(string, string) echo.MiddlewareFunc { return xfields },
	}}
	v1api.RegisterHandlers(v1Routes, v1api.NewStrictHandler(jobsAPI, nil))
	if d.Tracing.Enabled() {
		// Before routing, so the server span covers every middleware and every handler's context has it.
		e.Pre(d.Tracing.HTTP(func(method, route string) string {
			if id := apiValidator.OperationID(method, route); id != "" {
				return id
			}
			return v1Validator.OperationID(method, route)
		}))
	}
	// The page that e-mailed links open is a browser form, not an operation of either contract.
	e.GET(authn.LinkPagePath, api.authnService.LinkPage)
	e.POST(authn.LinkPagePath, api.authnService.LinkPage, middleware.BodyLimit("16K"))
	// Every request is counted, outside everything else, under the operation it reached.
	e.Pre(metrics.HTTP(operationOf(apiValidator, v1Validator)))
	ui, err := queueui.New(q, d.Logger)
	if err != nil {
		return nil, fmt.Errorf("river UI: %w", err)
	}
	mountOperations(e, metrics, ui, cfg.MetricsAddr != "", authenticator.Resolve)

	return &Server{inbound: emailtasksSvc, inboundAddr: cfg.InboundSMTPAddr, engine: engine, jq: jqPool, echo: e, health: hs, queue: q, tokens: tokens, bus: bus, dsn: cfg.DatabaseURL, logger: d.Logger,
		metrics: metrics, metricsAddr: cfg.MetricsAddr, riverUI: ui}, nil
}

// builtinExecutors run the task types of tasks.Builtin, each but external (claimed by outside workers);
// Set.Check holds the two to each other. outbound is the SSRF-guarded client http_request calls through;
// humanReview is the human_review executor, which needs the database and the queue.
func builtinExecutors(jq executors.JQ, outbound *http.Client, mailDeps executors.MailDeps, humanReview executors.Executor, sqlConnect executors.SQLConnector,
	sqlLimits executors.SQLLimits, spill executors.Spill, creds executors.Credentials, models executors.Models) executors.Set {
	set := executors.Set{
		"sql_query":    executors.SQLQuery(sqlConnect, spill, sqlLimits),
		"transform":    executors.Transform(jq),
		"condition":    executors.Condition(jq),
		"delay":        executors.Delay(time.Now),
		"http_request": executors.HTTPRequest(outbound, creds),
		"email":        executors.Email(mailDeps),
		"human_review": humanReview,
	}
	set["llm"] = executors.LLM(jq, models, creds, llmUsage)
	// Opening a credential checks the right of the user who saved the version being run, which is found
	// through the attempt each run's context carries.
	return set.WithAttempts()
}

// credentialsFor opens the organization's credentials for the tasks that authenticate with them, when
// the user who saved the flow version being run may use them: one that user may not use (now: it may
// have been unshared since) is the same ErrNoCredential as one that does not exist. Outside an attempt
// nothing is opened.
func credentialsFor(o *credentials.Opener) executors.Credentials {
	return func(ctx context.Context, org, id uuid.UUID) (executors.Credential, error) {
		a, ok := executors.AttemptOf(ctx)
		if !ok || a.Org != org {
			return executors.Credential{}, executors.ErrNoCredential
		}
		err := o.UsableInExecution(ctx, org, a.Execution, id)
		if errors.Is(err, credentials.ErrNotFound) || errors.Is(err, credentials.ErrNotUsable) {
			return executors.Credential{}, executors.ErrNoCredential
		}
		if err != nil {
			return executors.Credential{}, err
		}
		sec, err := o.Open(ctx, org, id)
		if errors.Is(err, credentials.ErrNotFound) {
			return executors.Credential{}, executors.ErrNoCredential
		}
		if err != nil {
			return executors.Credential{}, err
		}
		c := executors.Credential{Provider: sec.Provider, Data: sec.Data, AllowedDomains: sec.AllowedDomains}
		if sec.CredentialType != nil {
			c.Type = *sec.CredentialType
		}
		return c, nil
	}
}

// spillTo stores large task results under the organization's prefix, as storage:// resolves them.
func spillTo(files blob.Store) executors.Spill {
	return func(ctx context.Context, org uuid.UUID, name string, data []byte) (string, error) {
		key := storage.OrgKey(org, name)
		if _, err := files.Put(ctx, key, bytes.NewReader(data), "application/json"); err != nil {
			return "", err
		}
		return storage.URI(name), nil
	}
}

// speechBackend is the configured OpenAI-compatible transcription service, else the offline
// recogniser when its Debian packages are installed, else none (the operation answers 501). The
// offline recogniser comes with its slots, shared fairly between organizations; the outside service
// is bounded by the per-minute limit alone.
func speechBackend(cfg config.Config) (speech.Transcriber, *fairshare.Semaphore[uuid.UUID]) {
	if cfg.TranscriptionURL != "" {
		return speech.NewOpenAI(cfg.TranscriptionURL, cfg.TranscriptionAPIKey, cfg.TranscriptionModel, nil), nil
	}
	if s, ok := speech.FindSphinx(cfg.TranscriptionSlots); ok && cfg.TranscriptionOffline {
		s.MaxSeconds = float64(cfg.TranscriptionMaxSeconds)
		return s, fairshare.New[uuid.UUID](cfg.TranscriptionSlots, cfg.TranscriptionSlotsPerOrg)
	}
	return nil, nil
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

// ServeHTTP makes the server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.echo.ServeHTTP(w, r) }

// Start removes temporary files earlier servers left (speech.SweepTemp), runs the background workers
// until Stop, and listens for the changes that make memoised
// principals and grants stale until ctx ends (without it, nothing is memoised).
func (s *Server) Start(ctx context.Context) error {
	// Recordings of requests a killed server was transcribing are still in the temporary directory.
	n, err := speech.SweepTemp(os.TempDir(), time.Minute)
	if err != nil {
		s.logger.Warn("temporary recordings left by stopped servers could not all be removed", "dir", os.TempDir(), "error", err)
	}
	if n > 0 {
		s.logger.Info("removed temporary recordings left by servers stopped mid-request", "dir", os.TempDir(), "removed", n)
	}
	if err := s.bus.Listen(ctx, s.dsn, s.logger); err != nil {
		return fmt.Errorf("listen for access changes: %w", err)
	}
	if err := s.queue.Start(ctx); err != nil {
		return err
	}
	if err := s.riverUI.Start(ctx); err != nil {
		return fmt.Errorf("river UI: %w", err)
	}
	if s.metricsAddr != "" {
		l, err := listenMetrics(s.metricsAddr, s.metrics.Handler(), s.logger)
		if err != nil {
			return err
		}
		s.metricsServer = l
		s.logger.Info("metrics listener", "addr", l.ln.Addr().String())
	}
	s.engine.StartLocal()
	if s.inboundAddr != "" {
		l, err := s.inbound.Listen(s.inboundAddr)
		if err != nil {
			return fmt.Errorf("inbound SMTP listener (LOOPWORK_INBOUND_SMTP_ADDR): %w", err)
		}
		s.listener = l
		s.logger.Info("inbound SMTP listener", "addr", l.Addr())
	}
	return nil
}

// MetricsAddr is where the metrics listener listens, or "" when metrics are served on the main one.
func (s *Server) MetricsAddr() string {
	if s.metricsServer == nil {
		return ""
	}
	return s.metricsServer.ln.Addr().String()
}

// InboundSMTPAddr is where the inbound SMTP listener listens, or "" when it does not run.
func (s *Server) InboundSMTPAddr() string {
	if s.listener == nil {
		return ""
	}
	return s.listener.Addr()
}

// Memo is the bus of the memoised principals and grants (tests wait on it).
func (s *Server) Memo() *memo.Bus { return s.bus }

// Stop lets background work in progress finish for up to grace.
func (s *Server) Stop(grace time.Duration) error {
	begin := time.Now()
	if s.listener != nil {
		_ = s.listener.Close()
	}
	if s.metricsServer != nil {
		s.metricsServer.close()
	}
	s.engine.Drain(grace)
	err := queue.Stop(s.queue, max(grace-time.Since(begin), time.Second))
	s.jq.Close()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// SetDraining makes readiness fail while a graceful shutdown lets requests in flight finish.
func (s *Server) SetDraining() { s.health.SetDraining() }

// Engine is the flow engine (tests run its sweeps).
func (s *Server) Engine() *run.Engine { return s.engine }

// Tokens issues access tokens; the test harness signs its callers in with it.
func (s *Server) Tokens() *auth.Tokens { return s.tokens }
