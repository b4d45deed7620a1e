package storage

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/auth"
	"github.com/loopwork/loopwork/internal/blob"
	"github.com/loopwork/loopwork/internal/httpx"
)

// LinkTTL is the lifetime of the links these routes issue.
const LinkTTL = time.Hour

// OrgKey is where an organization's object of key rel is stored: every tenant key lives under its
// organization's prefix, so a key given by one organization can never name another's object.
func OrgKey(org uuid.UUID, rel string) string {
	return "org/" + org.String() + "/" + strings.TrimPrefix(rel, "org/"+org.String()+"/")
}

// ResolveStorageUri turns a storage:// URI of the caller's organization into a one-hour link.
func (s *Service) ResolveStorageUri(ctx context.Context, req platformapi.ResolveStorageUriRequestObject) (platformapi.ResolveStorageUriResponseObject, error) {
	p := auth.MustFromContext(ctx)
	loc := []any{"body", "uri"}
	u, err := ParseURI(req.Body.Uri)
	switch {
	case errors.Is(err, ErrBadScheme):
		scheme, _, _ := strings.Cut(req.Body.Uri, "://")
		return nil, httpx.Invalid(loc, "value_error", "unsupported scheme "+quote(scheme)+": use storage://<key>")
	case err != nil:
		return nil, httpx.Invalid(loc, "value_error", err.Error())
	}
	if u.Scheme == "s3" {
		// Only the configured bucket is the server's; with local storage no bucket is.
		if b, ok := s.d.Files.(interface{ Bucket() string }); !ok || u.Bucket != b.Bucket() {
			return nil, httpx.NotFound("object")
		}
	}
	url, expires, err := s.link(ctx, p.OrganizationID, u.Key, loc)
	if err != nil {
		return nil, err
	}
	return platformapi.ResolveStorageUri200JSONResponse{DownloadUrl: url, ExpiresAt: expires.UTC(),
		ExpiresInSeconds: int(LinkTTL.Seconds())}, nil
}

// CreatePresignedDownloadUrl issues a one-hour link to an object of the caller's organization by key.
func (s *Service) CreatePresignedDownloadUrl(ctx context.Context, req platformapi.CreatePresignedDownloadUrlRequestObject) (platformapi.CreatePresignedDownloadUrlResponseObject, error) {
	p := auth.MustFromContext(ctx)
	url, expires, err := s.link(ctx, p.OrganizationID, req.Body.FileKey, []any{"body", "file_key"})
	if err != nil {
		return nil, err
	}
	e := expires.UTC()
	return platformapi.CreatePresignedDownloadUrl200JSONResponse{DownloadUrl: url, ExpiresAt: &e}, nil
}

func (s *Service) link(ctx context.Context, org uuid.UUID, rel string, loc []any) (string, time.Time, error) {
	if blob.CheckKey(rel) != nil {
		return "", time.Time{}, httpx.Invalid(loc, "value_error", ErrBadKey.Error())
	}
	key := OrgKey(org, rel)
	if _, err := s.d.Files.Stat(ctx, key); errors.Is(err, blob.ErrNotFound) {
		return "", time.Time{}, httpx.NotFound("object")
	} else if err != nil {
		return "", time.Time{}, err
	}
	expires := time.Now().Add(LinkTTL)
	url, err := s.d.Files.URL(ctx, key, LinkTTL, "")
	return url, expires, err
}

func quote(s string) string { return `"` + s + `"` }
