package tasks

import (
	"context"

	"github.com/google/uuid"
)

// Dynamic data is keyed by the parameter it fills, so that a form (or a language model) can offer the options
// next to the field they belong to.

func modelOptions(ctx context.Context, _ uuid.UUID, src Source) (map[string]any, error) {
	models, err := src.Models(ctx)
	if err != nil {
		return nil, err
	}
	opts := make([]any, 0, len(models))
	for _, mo := range models {
		opts = append(opts, map[string]any{"name": mo.Name, "provider": mo.Provider})
	}
	return map[string]any{"model": opts}, nil
}

func credentialsOptions(ctx context.Context, org uuid.UUID, src Source) (map[string]any, error) {
	creds, err := src.Credentials(ctx, org)
	if err != nil {
		return nil, err
	}
	return map[string]any{"credential_id": options(creds, "provider")}, nil
}

func sqlDatabaseOptions(ctx context.Context, org uuid.UUID, src Source) (map[string]any, error) {
	dbs, err := src.SQLDatabases(ctx, org)
	if err != nil {
		return nil, err
	}
	return map[string]any{"database_id": options(dbs, "type")}, nil
}

// options lists id and name of each option, with its kind under kindKey when it has one.
func options(list []Option, kindKey string) []any {
	out := make([]any, 0, len(list))
	for _, o := range list {
		e := map[string]any{"id": o.ID, "name": o.Name}
		if o.Kind != "" {
			e[kindKey] = o.Kind
		}
		out = append(out, e)
	}
	return out
}
