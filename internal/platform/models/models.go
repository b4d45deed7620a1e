// Package models implements GET /api/models: the language models the agent and llm tasks may use, from
// the server's configuration, with the built-in offline model always among them.
package models

import (
	"context"
	"sort"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/engine/tasks"
)

// Builtin is the endpoint of the deterministic offline model every server has: it runs inside the
// server, so it processes data wherever the server runs (region global, location local).
var Builtin = config.ModelEndpoint{Model: "loopwork-builtin", Provider: "builtin", Region: "global", Location: "local"}

// Service implements listModels.
type Service struct{ endpoints []config.ModelEndpoint }

// New returns the service over the configured endpoints.
func New(configured []config.ModelEndpoint) *Service {
	return &Service{endpoints: append([]config.ModelEndpoint{Builtin}, configured...)}
}

// TaskModels are the models as the task-type registry offers them to llm tasks.
func (s *Service) TaskModels() []tasks.Model {
	seen := map[string]bool{}
	var out []tasks.Model
	for _, e := range s.endpoints[1:] {
		if !seen[e.Model] {
			seen[e.Model] = true
			out = append(out, tasks.Model{Name: e.Model, Provider: e.Provider})
		}
	}
	return out
}

// ListModels answers one entry per model name, sorted by name, optionally of one region.
func (s *Service) ListModels(_ context.Context, req platformapi.ListModelsRequestObject) (platformapi.ListModelsResponseObject, error) {
	by := map[string]*platformapi.ModelInfo{}
	for _, e := range s.endpoints {
		if req.Params.Region != nil && string(*req.Params.Region) != e.Region {
			continue
		}
		m := by[e.Model]
		if m == nil {
			m = &platformapi.ModelInfo{ModelName: e.Model, Regions: []platformapi.Region{}, Locations: []string{}, Providers: []string{}}
			by[e.Model] = m
		}
		m.EndpointCount++
		m.Regions = addOnce(m.Regions, platformapi.Region(e.Region))
		if e.Location != "" {
			m.Locations = addOnce(m.Locations, e.Location)
		}
		m.Providers = addOnce(m.Providers, e.Provider)
	}
	out := platformapi.ListModels200JSONResponse{Models: make([]platformapi.ModelInfo, 0, len(by))}
	for _, m := range by {
		out.Models = append(out.Models, *m)
	}
	sort.Slice(out.Models, func(i, j int) bool { return out.Models[i].ModelName < out.Models[j].ModelName })
	out.Count = len(out.Models)
	return out, nil
}

func addOnce[T comparable](s []T, v T) []T {
	for _, e := range s {
		if e == v {
			return s
		}
	}
	return append(s, v)
}
