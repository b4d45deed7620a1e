package flows

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
)

// UpdateFlow saves a new version when the body's definition is a new one, and changes the other fields
// in place otherwise; omitted or null fields keep their value.
func (s *Service) UpdateFlow(ctx context.Context, req platformapi.UpdateFlowRequestObject) (platformapi.UpdateFlowResponseObject, error) {
	b := req.Body
	if b.DisplayName != nil {
		if err := nameOK(*b.DisplayName, []any{"body", "display_name"}); err != nil {
			return nil, err
		}
	}
	out, err := s.saveAndRender(ctx, req.Id, change{definition: b.Definition, displayName: b.DisplayName,
		description: b.Description, settings: b.Settings, status: b.Status, visibility: b.Visibility,
		statusLoc: []any{"body", "status"}})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateFlowDefinition saves a new version with the body's definition and everything else unchanged; the
// definition the flow already has saves nothing.
func (s *Service) UpdateFlowDefinition(ctx context.Context, req platformapi.UpdateFlowDefinitionRequestObject) (platformapi.UpdateFlowDefinitionResponseObject, error) {
	out, err := s.saveAndRender(ctx, req.Id, change{definition: req.Body.Definition,
		statusLoc: []any{"status"}})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ModifyFlow changes the given attributes in place on the latest version: a patch has no definition, so
// it never saves a version.
func (s *Service) ModifyFlow(ctx context.Context, req platformapi.ModifyFlowRequestObject) (platformapi.ModifyFlowResponseObject, error) {
	b := req.Body
	if b.DisplayName != nil {
		if err := nameOK(*b.DisplayName, []any{"body", "display_name"}); err != nil {
			return nil, err
		}
	}
	out, err := s.saveAndRender(ctx, req.Id, change{displayName: b.DisplayName, description: b.Description,
		settings: b.Settings, status: b.Status, visibility: b.Visibility, statusLoc: []any{"body", "status"}})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (s *Service) saveAndRender(ctx context.Context, id uuid.UUID, ch change) (flowReply, error) {
	sv, err := s.save(ctx, id, ch)
	if err != nil {
		return flowReply{}, err
	}
	counts, err := executionCounts(ctx, s.db, []uuid.UUID{id})
	if err != nil {
		return flowReply{}, err
	}
	out, err := s.renderer(callerOf(ctx), expand{}).flow(ctx, sv.v, sv.head.LatestVersion, counts[id], &sv.chk.result)
	if err != nil {
		return flowReply{}, err
	}
	withResult(&out.FlowResponse, sv.chk)
	return flowReply{out, http.StatusOK}, nil
}
