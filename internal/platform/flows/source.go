package flows

import (
	"context"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// BuiltinModel is the model every server has: the deterministic offline model that answers when no
// OpenAI-compatible endpoint is configured.
var BuiltinModel = tasks.Model{Name: "loopwork-builtin", Provider: "builtin"}

// Source is the dynamic data of task types as this server knows it: the configured models, and the
// organization's SQL databases and credentials.
type Source struct {
	models []tasks.Model
}

// NewSource returns the source with the built-in model and the extra models given.
func NewSource(models ...tasks.Model) *Source {
	return &Source{models: append([]tasks.Model{BuiltinModel}, models...)}
}

// Models are the models an llm task may name.
func (s *Source) Models(context.Context) ([]tasks.Model, error) { return s.models, nil }

// SQLDatabases are the organization's SQL databases. The server keeps none yet: the SQL database
// routes of the platform resources answer 501 until they are built, so the list is honestly empty.
func (s *Source) SQLDatabases(context.Context, uuid.UUID) ([]tasks.Option, error) {
	return []tasks.Option{}, nil
}

// Credentials are the organization's stored credentials; none can be stored yet (see SQLDatabases).
func (s *Source) Credentials(context.Context, uuid.UUID) ([]tasks.Option, error) {
	return []tasks.Option{}, nil
}
