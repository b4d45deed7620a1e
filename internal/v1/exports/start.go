package exports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	echomw "github.com/oapi-codegen/echo-middleware"
	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/loopwork/loopwork/gen/v1api"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/dbx"
	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/v1/access"
	"github.com/loopwork/loopwork/internal/v1/filter"
)

// ExportJobResponses records the export (QUEUED) and queues the job that writes its file, in one
// transaction.
func (s *Service) ExportJobResponses(ctx context.Context, req v1api.ExportJobResponsesRequestObject) (v1api.ExportJobResponsesResponseObject, error) {
	g, p, err := s.d.Grants.Require(ctx, req.AppId, access.Manager)
	if err != nil {
		return nil, err
	}
	set := filter.FromParams(req.Params)
	if _, err := set.Compile(2); err != nil {
		var problem *filter.Problem
		if errors.As(err, &problem) {
			return nil, problem.HTTP()
		}
		return nil, err
	}
	opts := optionsOf(req.Params)
	email, err := recipient(req, p)
	if err != nil {
		return nil, err
	}
	format := "jsonl"
	if opts.CSV {
		format = "csv"
	}
	base := defaultName(g.Name, time.Now())
	if req.Params.FileName != nil {
		base = *req.Params.FileName
	}
	shown, err := json.Marshal(queryOf(ctx))
	if err != nil {
		return nil, err
	}
	rawFilter, err := json.Marshal(set)
	if err != nil {
		return nil, err
	}
	rawOpts, err := json.Marshal(opts)
	if err != nil {
		return nil, err
	}
	e := row{ID: uuid.New(), Org: p.OrganizationID, App: req.AppId, Status: "QUEUED", Format: format, Email: email,
		Options: shown, CreatedBy: usernameOf(p)}
	err = dbx.WithTx(ctx, s.d.DB, func(tx *sqlx.Tx) error {
		if e.Filename, err = freeName(ctx, tx, p.OrganizationID, base, format); err != nil {
			return err
		}
		e.Key = "org/" + p.OrganizationID.String() + "/exports/" + e.ID.String() + "/" + e.Filename
		var user *uuid.UUID
		if p.Credential != auth.CredentialAPIKey {
			user = &p.UserID
		}
		if err := tx.GetContext(ctx, &e.CreatedAt, `INSERT INTO exports (id, organization_id, app_id, filename, format,
			options, filter, file_options, email, storage_key, created_by, created_by_user)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING created_at`,
			e.ID, e.Org, e.App, e.Filename, format, string(shown), string(rawFilter), string(rawOpts), email, e.Key,
			e.CreatedBy, user); err != nil {
			return err
		}
		_, err := s.d.Queue.InsertTx(ctx, tx.Tx, Args{ID: e.ID}, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.observe("started")
	out := v1api.ExportJobResponses202JSONResponse{ExportId: e.ID, AppId: e.App, Status: v1api.ExportStatus(e.Status),
		Filename: e.Filename, Format: v1api.AppDownloadJobsFormat(format), CreatedAt: e.CreatedAt.UTC()}
	if email != nil {
		out.Email = (*openapi_types.Email)(email)
	}
	return out, nil
}

func optionsOf(p v1api.ExportJobResponsesParams) Options {
	o := Options{CSV: is(p.Csv, false), Flatten: is(p.FlattenedOutput, true), WithFeedback: is(p.WithFeedback, false),
		WithHistory: is(p.WithHistory, false), FlattenTables: is(p.FlattenTables, false),
		NoHeader: is(p.ExcludeHeaderRow, false), QuoteAll: is(p.QuoteValues, false), Delimiter: "comma"}
	if p.AnnotationPostfixKeys != nil {
		o.Postfixes = *p.AnnotationPostfixKeys
	}
	if p.FieldDelimiter != nil {
		o.Delimiter = string(*p.FieldDelimiter)
	}
	return o
}

func is(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

// recipient is where the link goes with sendEmail: the body's address, else the calling user's.
func recipient(req v1api.ExportJobResponsesRequestObject, p *auth.Principal) (*string, error) {
	if !is(req.Params.SendEmail, false) {
		return nil, nil
	}
	if req.Body != nil && req.Body.Email != nil && *req.Body.Email != "" {
		e := string(*req.Body.Email)
		return &e, nil
	}
	if p.Credential != auth.CredentialAPIKey && p.Email != "" {
		e := p.Email
		return &e, nil
	}
	return nil, httpx.InvalidV1([]any{"body", "email"}, "missing", "sendEmail=true needs an e-mail address in the body when the caller is an API key")
}

func usernameOf(p *auth.Principal) *string {
	if p.Credential == auth.CredentialAPIKey || p.Email == "" {
		return nil
	}
	e := p.Email
	return &e
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// defaultName is the app's name made safe for a file name, and the UTC time of the request.
func defaultName(app string, now time.Time) string {
	n := strings.Trim(unsafeName.ReplaceAllString(app, "_"), "._-")
	if len(n) > 100 {
		n = n[:100]
	}
	if n == "" {
		n = "export"
	}
	return n + "_" + now.UTC().Format("20060102T150405Z")
}

// freeName adds the extension, and a numeric suffix when the organization has a file of that name.
func freeName(ctx context.Context, tx *sqlx.Tx, org uuid.UUID, base, format string) (string, error) {
	// Files of one organization are named uniquely; the lock keeps two requests from picking one name.
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('exports:' || $1::text, 0))`, org); err != nil {
		return "", err
	}
	for i := 1; ; i++ {
		name := base + "." + format
		if i > 1 {
			name = fmt.Sprintf("%s-%d.%s", base, i, format)
		}
		var taken bool
		if err := tx.GetContext(ctx, &taken, `SELECT EXISTS (SELECT 1 FROM exports WHERE organization_id = $1 AND filename = $2)`,
			org, name); err != nil {
			return "", err
		}
		if !taken {
			return name, nil
		}
	}
}

// queryOf is the request's query string by parameter name, as the export shows its options.
func queryOf(ctx context.Context) map[string]any {
	out := map[string]any{}
	c := echomw.GetEchoContext(ctx)
	if c == nil {
		return out
	}
	for k, vs := range c.QueryParams() {
		if len(vs) == 1 {
			out[k] = vs[0]
		} else {
			out[k] = vs
		}
	}
	return out
}
