package flows

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/engine/dsl"
)

// expand are the expansion parameters of flow reads.
type expand struct {
	order, errors, dynamic, outputs bool
}

func flag(b *bool) bool { return b != nil && *b }

// renderer turns stored versions into FlowResponses for one request; the dynamic data of each task
// type is looked up once per request, however many tasks and versions use it.
type renderer struct {
	s       *Service
	c       caller
	ex      expand
	dynamic map[string]map[string]any
}

func (s *Service) renderer(c caller, ex expand) *renderer {
	return &renderer{s: s, c: c, ex: ex, dynamic: map[string]map[string]any{}}
}

// flow renders a version. latest is the flow's latest version number, executions its execution count;
// known, when not nil, is the version's validation result already at hand. The definition is decoded
// only when an expansion needs it.
func (r *renderer) flow(ctx context.Context, v version, latest, executions int, known *dsl.Result) (flowJSON, error) {
	vis := platformapi.FlowVisibility(v.Visibility)
	out := flowJSON{FlowResponse: platformapi.FlowResponse{
		Id: v.FlowID, Version: v.Version, OrganizationId: v.Org, DisplayName: v.DisplayName,
		Description: v.Description, Status: platformapi.FlowStatus(v.Status), Visibility: &vis,
		IsLatest: v.Version == latest, FlowExecutionsCount: executions,
		CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt, ModifiedBy: v.ModifiedBy,
	}, Definition: json.RawMessage(v.Definition)}
	if v.Settings != nil {
		var st platformapi.FlowSettings
		if err := json.Unmarshal(v.Settings, &st); err != nil {
			return out, err
		}
		out.Settings = &st
	}
	needs := ((r.ex.order || r.ex.errors) && known == nil) || r.ex.dynamic || r.ex.outputs
	if !needs && known == nil {
		return out, nil
	}
	var def map[string]any
	if needs {
		var err error
		if def, err = decodeObject(v.Definition); err != nil {
			return out, err
		}
	}
	res := known
	if (r.ex.order || r.ex.errors) && res == nil {
		checked := dsl.Validate(def, r.s.registry)
		res = &checked
	}
	if r.ex.order && res.Order != nil {
		names := res.Order
		out.TaskNames = &names
	}
	if r.ex.errors {
		d, w := details(*res), warnings(*res)
		out.ValidationErrors, out.ValidationWarnings = &d, &w
	}
	if r.ex.dynamic || r.ex.outputs {
		if err := r.annotate(ctx, def); err != nil {
			return out, err
		}
		raw, err := json.Marshal(def)
		if err != nil {
			return out, err
		}
		out.Definition = raw
	}
	return out, nil
}

// annotate adds dynamic_data and output_schema to each task of a known type. Tasks that are not
// objects or name no known type are left as they are: validation_errors reports them.
func (r *renderer) annotate(ctx context.Context, def map[string]any) error {
	list, _ := def["tasks"].([]any)
	for _, t := range list {
		task, ok := t.(map[string]any)
		if !ok {
			continue
		}
		typ, _ := task["type"].(string)
		if _, known := r.s.registry.Lookup(typ); !known {
			continue
		}
		if r.ex.outputs {
			task["output_schema"] = r.s.registry.OutputSchema(typ)
		}
		if r.ex.dynamic {
			d, ok := r.dynamic[typ]
			if !ok {
				var err error
				if d, err = r.s.registry.DynamicData(ctx, r.c.org, typ, r.s.source); err != nil {
					return err
				}
				r.dynamic[typ] = d
			}
			task["dynamic_data"] = d
		}
	}
	return nil
}

// decodeObject reads a stored definition keeping numbers as written (json.Number), so a large
// integer in a task's parameters comes back exactly as it was stored.
func decodeObject(raw []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}
