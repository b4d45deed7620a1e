package server

import (
	"time"

	"github.com/riverqueue/river"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/v1/apimetrics"
	"github.com/loopwork/loopwork/internal/v1/apps"
	"github.com/loopwork/loopwork/internal/v1/baseline"
	"github.com/loopwork/loopwork/internal/v1/bulk"
	"github.com/loopwork/loopwork/internal/v1/exports"
	"github.com/loopwork/loopwork/internal/v1/jobs"
	"github.com/loopwork/loopwork/internal/v1/labeling"
	"github.com/loopwork/loopwork/internal/v1/lifecycle"
	"github.com/loopwork/loopwork/internal/v1/measurerconfig"
	"github.com/loopwork/loopwork/internal/v1/measurerops"
	"github.com/loopwork/loopwork/internal/v1/members"
	"github.com/loopwork/loopwork/internal/v1/tags"
	"github.com/loopwork/loopwork/internal/v1/workers"
)

// v1 implements the /v1 interface the same way as platform does /api.
type v1 struct {
	*appsService
	*tagsService
	*membersService
	*workersService
	*jobsService
	*bulkService
	*measurerconfigService
	*exportsService
	*labelingService
	*baselineService
	*apimetricsService
	*measureropsService
	v1Pending
}

type (
	appsService           = apps.Service
	tagsService           = tags.Service
	membersService        = members.Service
	workersService        = workers.Service
	measurerconfigService = measurerconfig.Service
	exportsService        = exports.Service
	labelingService       = labeling.Service
	baselineService       = baseline.Service
	apimetricsService     = apimetrics.Service
	measureropsService    = measurerops.Service
	jobsService           = jobs.Service
	bulkService           = bulk.Service
)

type v1Pending struct{ v1api.Unimplemented }

var _ v1api.StrictServerInterface = v1{}

// v1Area holds the /v1 services that run River workers. They are built before the queue client, which
// River builds from the workers; the services that only insert jobs are built with the client (api).
type v1Area struct {
	lifecycle   *lifecycle.Service
	exports     *exports.Service
	jobs        *jobs.Service
	measurerops *measurerops.Service
}

// wireV1 builds the /v1 services that run workers and adds the workers to the queue's.
func wireV1(c *core, eng *engineArea) *v1Area {
	d, cfg := c.d, c.cfg
	a := &v1Area{}
	// PENDING jobs are admitted, and jobs expire, in the background; an execution of a job that ends
	// makes room for the next of its app.
	a.lifecycle = lifecycle.New(d.DB, eng.engine, d.Logger, cfg.TaskLease)
	a.lifecycle.Register(c.workers)
	// A hook rather than a dependency: the engine imports neither interface, so the /v1 half registers
	// what it is told of each execution that ends.
	eng.engine.OnEnd(a.lifecycle.ExecutionEnded)
	river.AddWorker(c.workers, bulk.NewWorker(d.DB, d.Logger))
	a.exports = exports.New(exports.Deps{DB: d.DB, DatabaseURL: cfg.DatabaseURL, Grants: c.grants, Files: c.files, Logger: d.Logger,
		Silence: max(2*cfg.TaskLease, 10*time.Second), Observe: c.metrics.Export})
	a.exports.Register(c.workers)
	a.jobs = jobs.New(jobs.Deps{DB: d.DB, ReadDB: d.ReadDB, Grants: c.grants, Engine: eng.engine, Admission: a.lifecycle,
		Expiry: a.lifecycle.Sweep(), Reviews: eng.reviews})
	a.measurerops = measurerops.New(measurerops.Deps{DB: d.DB, Grants: c.grants, Jobs: a.jobs, Logger: d.Logger})
	a.measurerops.Register(c.workers)
	return a
}

// api is the /v1 interface: the services above and the ones that need nothing but the database, the
// grants and the queue client, which exists by now.
func (a *v1Area) api(c *core) v1 {
	d := c.d
	return v1{
		appsService:           apps.New(apps.Deps{DB: d.DB, Grants: c.grants, Queue: c.queue, Admission: a.lifecycle}),
		tagsService:           tags.New(tags.Deps{DB: d.DB, Grants: c.grants}),
		membersService:        members.New(members.Deps{DB: d.DB, Grants: c.grants}),
		workersService:        workers.New(workers.Deps{DB: d.DB, Grants: c.grants}),
		jobsService:           a.jobs,
		bulkService:           bulk.New(bulk.Deps{DB: d.DB, Grants: c.grants, Queue: c.queue}),
		measurerconfigService: measurerconfig.New(measurerconfig.Deps{DB: d.DB, Grants: c.grants}),
		exportsService:        a.exports,
		labelingService:       labeling.New(labeling.Deps{DB: d.DB, Grants: c.grants}),
		baselineService:       baseline.New(baseline.Deps{DB: d.DB, Grants: c.grants}),
		apimetricsService:     apimetrics.New(apimetrics.Deps{DB: d.DB, Grants: c.grants}),
		measureropsService:    a.measurerops,
	}
}
