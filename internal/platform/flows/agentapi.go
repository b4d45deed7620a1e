package flows

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
)

// EmptyDefinition is the definition of a new draft flow.
const EmptyDefinition = `{"version": 1, "tasks": [], "edges": []}`

// CreateDraft creates a draft flow with an empty definition as the caller of ctx, for the agent's new
// conversations, and answers its id.
func (s *Service) CreateDraft(ctx context.Context, name string) (uuid.UUID, error) {
	res, err := s.CreateFlow(ctx, platformapi.CreateFlowRequestObject{Body: &platformapi.FlowCreateRequest{DisplayName: name,
		Definition: json.RawMessage(EmptyDefinition)}})
	if err != nil {
		return uuid.Nil, err
	}
	return res.(flowReply).Id, nil
}

// Latest is the latest version of a flow the caller of ctx sees: its number and definition (404 for a
// flow the caller may not see).
func (s *Service) Latest(ctx context.Context, id uuid.UUID) (int, json.RawMessage, error) {
	f, err := visibleFlow(ctx, s.db, callerOf(ctx), id, false)
	if err != nil {
		return 0, nil, err
	}
	v, err := getVersion(ctx, s.db, f, 0)
	return v.Version, v.Definition, err
}

// SaveDefinition saves a definition as the flow's next version, as the caller of ctx, with the same
// rules as PUT /api/flows/{id}/definition, and answers the version's number (the latest one's when the
// flow has that definition already).
func (s *Service) SaveDefinition(ctx context.Context, id uuid.UUID, def json.RawMessage) (int, error) {
	sv, err := s.save(ctx, id, change{definition: def, statusLoc: []any{"status"}})
	return sv.v.Version, err
}
