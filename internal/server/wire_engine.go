package server

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/internal/blob"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/executors"
	"github.com/loopwork/loopwork/internal/engine/jqrun"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/mail"
	"github.com/loopwork/loopwork/internal/platform/credentials"
	"github.com/loopwork/loopwork/internal/platform/documents"
	"github.com/loopwork/loopwork/internal/platform/reviews"
	"github.com/loopwork/loopwork/internal/platform/storage"
	"github.com/loopwork/loopwork/internal/queue"
)

// engineArea is the flow engine and what it runs tasks through: the jq pool, and two /api services
// whose parts are executors (reviews' human_review, documents' SQL connections), so they are built with
// the engine rather than with the rest of /api.
type engineArea struct {
	engine *run.Engine
	// numbers is the engine's pool for run numbers (run.Deps.Numbers).
	numbers   *sqlx.DB
	jqPool    *jqrun.Pool
	reviews   *reviews.Service
	documents *documents.Service
}

// wireEngine builds the engine with every built-in executor and adds its workers, and those of reviews
// and documents, to the queue's.
func wireEngine(c *core) (*engineArea, error) {
	d, cfg := c.d, c.cfg
	a := &engineArea{reviews: reviews.New(reviews.Deps{DB: d.DB})}
	a.documents = documents.New(documents.Deps{DB: d.DB, DatabaseURL: cfg.DatabaseURL, DocumentsURL: cfg.DocumentsURL(),
		OwnCluster: cfg.DocumentsDatabaseURL == "", Files: c.files, Box: c.box, Secrets: c.secrets, Guard: c.guard,
		Logger: d.Logger, Limits: documents.Limits{Connections: cfg.DocumentsConnectionLimit,
			StatementTimeout: cfg.SQLStatementTimeout, QuotaBytes: int64(cfg.DocumentsQuotaMB) << 20}})
	if a.jqPool = d.JQ; a.jqPool == nil {
		var err error
		if a.jqPool, err = newJQPool(cfg); err != nil {
			return nil, err
		}
	}
	jq := executors.JQ{Pool: a.jqPool, Template: cfg.JQShortTime, Max: cfg.JQMaxTime}
	// The queue client is built from the engine's workers (wireQueue), after the executors; the email
	// executor looks it up when it runs, not now.
	mailDeps := executors.MailDeps{Queue: func() *queue.Client { return c.queue }, Domain: mail.Domain(cfg), JQ: jq}
	builtin := builtinExecutors(jq, c.outbound, mailDeps, a.reviews.Executor(),
		a.documents.SQLConnector(), executors.SQLLimits{MaxRows: cfg.SQLMaxRows, StatementTimeout: cfg.SQLStatementTimeout},
		spillTo(c.files), credentialsFor(c.secrets), modelsOf(c.endpoints))
	// A task type the registry declares but nothing runs would pass validation and fail at run time:
	// such a server does not start.
	if err := builtin.Check(c.registry, run.External); err != nil {
		return nil, err
	}
	execs := c.metrics.Executors(builtin)
	// Two connections at most, closed after a minute unused: numbers are taken in blocks, one statement
	// for many starts of a busy flow, and an idle server holds none.
	numbers, err := dbx.Open(context.Background(), cfg.DatabaseURL, dbx.PoolOptions{MaxOpenConns: 2, MaxIdleConns: 2})
	if err != nil {
		return nil, err
	}
	numbers.SetConnMaxIdleTime(time.Minute)
	a.numbers = numbers
	a.engine = run.New(run.Deps{DB: d.DB, Numbers: numbers, Registry: c.registry, Executors: execs, Logger: d.Logger, Lease: cfg.TaskLease,
		Workers: cfg.TaskWorkers, WorkersPerOrg: cfg.TaskWorkersPerOrgValue(), Tracer: d.Tracing.Provider(), JQ: a.jqPool,
		EdgeTime: cfg.JQShortTime})
	// A setter, unavoidably: the engine runs reviews' executor, so reviews exists first, and reviews
	// finishes through the engine the attempts that wait for a review.
	a.reviews.SetEngine(a.engine)
	a.engine.Register(c.workers)
	a.reviews.Register(c.workers)
	a.documents.Register(c.workers)
	return a, nil
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
		"http_request": executors.HTTPRequest(outbound, creds, jq),
		"email":        executors.Email(mailDeps),
		"human_review": humanReview,
		"llm":          executors.LLM(jq, models, creds, llmUsage),
	}
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
