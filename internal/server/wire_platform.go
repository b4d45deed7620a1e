package server

import (
	"context"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/db/migrations"
	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/fairshare"
	"github.com/loopwork/loopwork/internal/llm"
	"github.com/loopwork/loopwork/internal/mail"
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
	"github.com/loopwork/loopwork/internal/speech"
)

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

var _ platformapi.StrictServerInterface = platform{}

// platformArea holds the /api services, besides the engine's, that run River workers: they are built
// before the queue client, which River builds from the workers; the rest of /api comes with the client.
type platformArea struct {
	sso *sso.Service
}

// wirePlatform builds the /api services that run workers and adds the workers to the queue's.
func wirePlatform(c *core) *platformArea {
	d, cfg := c.d, c.cfg
	// The outbox's worker delivers the mail of every area.
	river.AddWorker(c.workers, mail.NewWorker(d.DB, c.sender, d.Logger))
	// Verified single sign-on domains are checked again daily in the background.
	a := &platformArea{sso: sso.New(sso.Deps{DB: d.DB, HTTPClient: c.outbound, Limiter: c.limiter,
		Resolver: sso.NewResolver(cfg.DNSResolver), Logger: d.Logger})}
	a.sso.Register(c.workers)
	return a
}

// api is the /api interface, built once the queue client exists. It fails on a broken embedded
// contract of the documentation pages.
func (a *platformArea) api(c *core, eng *engineArea) (platform, error) {
	d, cfg := c.d, c.cfg
	credentialsSvc := credentials.New(credentials.Deps{DB: d.DB, Box: c.box})
	modelsSvc := models.New(c.endpoints)
	migrationState := func(ctx context.Context) (bool, error) {
		p, err := migrations.NewProvider(d.DB.DB, nil)
		if err != nil {
			return false, err
		}
		return p.HasPending(ctx)
	}
	hs := health.New(d.DB, migrationState, cfg.ReadinessTimeout, c.apiSpec.Info.Version)
	ds, err := docs.New(platformapi.OpenAPIJSON, v1api.SwaggerJSON, v1api.OpenAPIJSON, []docs.Spec{
		{Name: "/api — workflow platform", URL: "/api/openapi.json"},
		{Name: "/v1 — apps and jobs", URL: "/v1/openapi.json"},
	})
	if err != nil {
		return platform{}, err
	}
	var agentModel llm.Provider
	if cfg.AgentModel != "" {
		agentModel, _, _ = modelsOf(c.endpoints)(cfg.AgentModel, "")
	}
	flowsSvc := flows.New(flows.Deps{DB: d.DB, Registry: c.registry, Engine: eng.engine,
		Source: flows.NewSource(d.DB, modelsSvc.TaskModels()...)})
	inboundDomain := cfg.InboundDomain
	if inboundDomain == "" {
		inboundDomain = mail.Domain(cfg)
	}
	transcriber, transcriberSlots := speechBackend(cfg)
	return platform{
		healthService: hs,
		docsService:   ds,
		authnService: authn.New(authn.Deps{DB: d.DB, Keys: c.keys, Tokens: c.tokens, Limiter: c.limiter,
			AnonKey: cfg.AnonKey, RefreshTTL: cfg.RefreshTokenTTL, PerIP: cfg.SignInLimitPerIP, PerEmail: cfg.SignInLimitPerEmail}),
		orgsService: orgs.New(orgs.Deps{DB: d.DB}),
		usersService: users.New(users.Deps{DB: d.DB, Queue: c.queue, Limiter: c.limiter,
			InviteTTL: cfg.InviteTTL, RecoveryTTL: cfg.RecoveryTTL, WebURL: webURL(cfg)}),
		apikeysService: apikeys.New(apikeys.Deps{DB: d.DB}),
		ssoService:     a.sso,
		billingService: billing.New(billing.Deps{DB: d.DB}),
		flowsService:   flowsSvc,
		conversationsService: conversations.New(conversations.Deps{DB: d.DB, Flows: flowsSvc, Registry: c.registry,
			Limiter: c.limiter, PerMinute: cfg.AgentPerMinute, Timeout: cfg.AgentTimeout, Logger: d.Logger,
			Model: agentModel, ModelName: cfg.AgentModel}),
		executionsService: executions.New(executions.Deps{DB: d.DB, Engine: eng.engine}),
		taskmarksService:  taskmarks.New(taskmarks.Deps{DB: d.DB}),

		taskexecutionsService: taskexecutions.New(taskexecutions.Deps{DB: d.DB, Engine: eng.engine}),
		reviewsService:        eng.reviews,
		credentialsService:    credentialsSvc,
		sqldatabasesService: sqldatabases.New(sqldatabases.Deps{DB: d.DB, Secrets: c.secrets,
			Credentials: credentialsSvc, Guard: c.guard, Limiter: c.limiter}),
		modelsService:    modelsSvc,
		documentsService: eng.documents,
		emailtasksService: emailtasks.New(emailtasks.Deps{DB: d.DB, Engine: eng.engine, Files: c.files, Domain: inboundDomain,
			MaxBytes: cfg.InboundMaxBytesValue(), MaxSessions: cfg.InboundMaxSessions, SessionTimeout: cfg.InboundSessionTimeout,
			Logger: d.Logger}),
		storageService: storage.New(storage.Deps{Files: c.files, Signer: signerOf(c.files)}),
		transcriptionService: transcription.New(transcription.Deps{Backend: transcriber, Slots: transcriberSlots,
			MaxBytes: cfg.TranscriptionMaxBytesValue(), MaxSeconds: cfg.TranscriptionMaxSeconds, Limiter: c.limiter,
			PerMinute: cfg.TranscriptionPerMinute}),
		integrationsService: integrations.New(integrations.Deps{DB: d.DB, Registry: c.registry,
			Secrets: c.secrets, Guard: c.guard}),
	}, nil
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
