// Package conversations implements the agent's conversation routes of the /api interface: a user's
// conversations with the workflow agent, their stored messages, and the chat stream, where the agent
// answers a text message or an action with server-sent events, storing each event before it is sent.
package conversations

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/tasks"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/llm"
	"github.com/loopwork/loopwork/internal/platform/flows"
	"github.com/loopwork/loopwork/internal/ratelimit"
)

// Deps are what the service needs.
type Deps struct {
	DB       *sqlx.DB
	Flows    *flows.Service
	Registry *tasks.Registry
	Limiter  *ratelimit.Limiter
	// PerMinute bounds the agent replies (chat and direct) of one organization.
	PerMinute int
	// Timeout bounds one reply.
	Timeout time.Duration
	// Model, when set, is the language model the agent uses (ModelName names it to the provider);
	// nil means the built-in offline agent.
	Model     llm.Provider
	ModelName string
	// KeepAlive is how often a comment line keeps a quiet stream open.
	KeepAlive time.Duration
	Logger    *slog.Logger
}

// Service implements the conversation operations of platformapi.StrictServerInterface.
type Service struct {
	d Deps
	// replies cancels the replies streaming in this process, by conversation, when it is deleted.
	mu      sync.Mutex
	replies map[uuid.UUID]context.CancelFunc
}

// New returns the service.
func New(d Deps) *Service {
	if d.KeepAlive <= 0 {
		d.KeepAlive = 15 * time.Second
	}
	if d.Timeout <= 0 {
		d.Timeout = 120 * time.Second
	}
	return &Service{d: d, replies: map[uuid.UUID]context.CancelFunc{}}
}

var errNotFound = httpx.NotFound("conversation")

type row struct {
	ID        uuid.UUID       `db:"id"`
	Org       uuid.UUID       `db:"organization_id"`
	UserID    uuid.UUID       `db:"user_id"`
	FlowID    *uuid.UUID      `db:"flow_id"`
	Title     *string         `db:"title"`
	Phase     string          `db:"phase"`
	Pending   json.RawMessage `db:"pending"`
	CreatedAt time.Time       `db:"created_at"`
	UpdatedAt time.Time       `db:"updated_at"`
}

// columns read a conversation; the flow is null once it was deleted.
const columns = `c.id, c.organization_id, c.user_id, CASE WHEN f.deleted_at IS NULL THEN c.flow_id END AS flow_id,
	c.title, c.phase, coalesce(c.pending, 'null') AS pending, c.created_at, c.updated_at`

const from = ` FROM conversations c LEFT JOIN flows f ON f.id = c.flow_id`

func (r row) response() platformapi.ConversationResponse {
	return platformapi.ConversationResponse{Id: r.ID, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		UserId: r.UserID.String(), FlowId: r.FlowID, Title: r.Title, Phase: platformapi.ConversationPhase(r.Phase)}
}

// get reads one of the caller's conversations: another user's is the same 404 as a missing one.
func get(ctx context.Context, db dbx.DBTX, p *auth.Principal, id uuid.UUID, lock bool) (row, error) {
	q := `SELECT ` + columns + from + ` WHERE c.organization_id = $1 AND c.user_id = $2 AND c.id = $3`
	if lock {
		q += ` FOR UPDATE OF c`
	}
	var r row
	err := db.GetContext(ctx, &r, q, p.OrganizationID, p.UserID, id)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return row{}, errNotFound
	}
	return r, err
}
