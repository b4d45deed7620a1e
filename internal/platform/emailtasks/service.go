// Package emailtasks implements the e-mail task routes of the /api interface, and the inbound SMTP
// listener that feeds them: each task is a unique address of an organization; every message received
// there is recorded, its attachments stored, and, when the task names a flow, an execution of it is
// started with the message as input — in the transaction that records the message.
package emailtasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/blob"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/engine/run"
	"github.com/loopwork/loopwork/internal/httpx"
)

// Deps are what the service needs.
type Deps struct {
	DB     *sqlx.DB
	Engine *run.Engine
	Files  blob.Store
	// Domain is the domain of the inbound addresses.
	Domain string
	// MaxBytes is the largest message the listener accepts.
	MaxBytes int64
	// MaxSessions bounds the SMTP sessions open at once; SessionTimeout bounds each whole session.
	MaxSessions    int
	SessionTimeout time.Duration
	Logger         *slog.Logger
}

// Service implements the e-mail task operations of platformapi.StrictServerInterface.
type Service struct{ d Deps }

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }

var errNotFound = httpx.NotFound("e-mail task")

type row struct {
	ID          uuid.UUID  `db:"id"`
	Org         uuid.UUID  `db:"organization_id"`
	Name        string     `db:"name"`
	Description *string    `db:"description"`
	FlowID      *uuid.UUID `db:"flow_id"`
	TaskName    *string    `db:"task_name"`
	LocalPart   string     `db:"local_part"`
	Status      string     `db:"status"`
	Count       int64      `db:"email_count"`
	Last        *time.Time `db:"last_email_received"`
	CreatedAt   time.Time  `db:"created_at"`
}

// columns read a task with the status it has now: a task whose flow was deleted is disabled.
const columns = `t.id, t.organization_id, t.name, t.description, t.flow_id, t.task_name, t.local_part,
	CASE WHEN f.deleted_at IS NOT NULL THEN 'disabled' ELSE t.status END AS status, t.email_count,
	t.last_email_received, t.created_at`

const from = ` FROM email_tasks t LEFT JOIN flows f ON f.id = t.flow_id`

func (s *Service) address(r row) string { return r.LocalPart + "@" + s.d.Domain }

func (s *Service) response(r row) platformapi.EmailTaskResponse {
	st := platformapi.EmailTaskResponseStatus(r.Status)
	return platformapi.EmailTaskResponse{TaskId: r.ID, EmailAddress: openapi_types.Email(s.address(r)), Name: r.Name, Description: r.Description, Status: &st}
}

func get(ctx context.Context, db dbx.DBTX, org, id uuid.UUID) (row, error) {
	var r row
	err := db.GetContext(ctx, &r, `SELECT `+columns+from+` WHERE t.organization_id = $1 AND t.id = $2 AND t.deleted_at IS NULL`, org, id)
	if errors.Is(dbx.Translate(err), dbx.ErrNotFound) {
		return row{}, errNotFound
	}
	return r, err
}

// newLocalPart is a fresh random local part: 64 bits, so addresses cannot be guessed.
func newLocalPart() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "t-" + hex.EncodeToString(b)
}

// writer refuses roles that may read e-mail tasks but not change them (kept here, after validation).
func writer(p *auth.Principal) error {
	if !p.ManagesResources() {
		return httpx.NewError(http.StatusForbidden, "forbidden", "changing e-mail tasks requires role org_admin, app_user or integration")
	}
	return nil
}

// localPart extracts the local part of an address of the inbound domain; false for another domain.
func (s *Service) localPart(addr string) (string, bool) {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 || !strings.EqualFold(addr[at+1:], s.d.Domain) {
		return "", false
	}
	return strings.ToLower(addr[:at]), true
}
