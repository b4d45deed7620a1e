// Package queueui serves River's own web UI (riverqueue.com/riverui) over loopwork's queue, so that an
// operator sees the background work of every replica — exports, mail, flow tasks, sweeps — and
// retries, cancels or deletes jobs. It is platform staff's tool: the server mounts it behind the
// backoffice check, never on a tenant's credentials alone.
package queueui

import (
	"log/slog"

	"riverqueue.com/riverui"

	"github.com/loopwork/loopwork/internal/queue"
)

// Prefix is where the UI is served; its JSON API is under Prefix + "/api". It lies outside the
// prefixes of both contracts (/api, /v1, /auth, /health), so no operation can ever collide with it.
const Prefix = "/admin/river"

// New returns the UI's handler over the server's own River client. riverui decorates the executor of
// any PostgreSQL driver of River, so it shares the client's database/sql pool instead of opening a
// pgx pool of its own. The server does not start the handler (Handler.Start), which would refresh job
// counts in the background every few seconds for the life of the process: unstarted, it counts when a
// page asks (exactly up to 10,000 jobs per state, the planner's estimate beyond).
func New(q *queue.Client, logger *slog.Logger) (*riverui.Handler, error) {
	return riverui.NewHandler(&riverui.HandlerOpts{
		Endpoints: riverui.NewEndpoints(q, nil),
		Logger:    logger,
		Prefix:    Prefix,
		// Job arguments may carry a tenant's data (a resumed task's output); the list hides them until
		// an operator opens a job.
		JobListHideArgsByDefault: true,
	})
}
