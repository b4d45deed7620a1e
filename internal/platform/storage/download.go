package storage

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"path"
	"strconv"
	"time"

	echomw "github.com/oapi-codegen/echo-middleware"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/blob"
	"github.com/loopwork/loopwork/internal/httpx"
)

// DownloadStorageObject serves the object a signed token names, with Range support. The token is the
// whole authorization: it names the object (whose key starts with its organization) and its expiry.
func (s *Service) DownloadStorageObject(ctx context.Context, req platformapi.DownloadStorageObjectRequestObject) (platformapi.DownloadStorageObjectResponseObject, error) {
	if s.d.Signer == nil {
		return nil, httpx.NotFound("object")
	}
	key, filename, err := s.d.Signer.Verify(req.Token, time.Now())
	switch {
	case errors.Is(err, blob.ErrExpiredLink):
		return nil, httpx.NewError(http.StatusGone, "link_expired", "the download link has expired; ask for a new one")
	case err != nil:
		return nil, httpx.NewError(http.StatusForbidden, "invalid_link", "the download link is malformed or its signature does not verify")
	}
	f, info, err := s.d.Files.Open(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, httpx.NotFound("object")
	}
	if err != nil {
		return nil, err
	}
	if filename == "" {
		filename = path.Base(key)
	}
	return served{ctx: ctx, body: f, info: info, filename: filename}, nil
}

// served writes an object through http.ServeContent, which answers Range, If-Modified-Since and HEAD.
type served struct {
	ctx      context.Context
	body     io.ReadCloser
	info     blob.Info
	filename string
}

func (o served) VisitDownloadStorageObjectResponse(w http.ResponseWriter) error {
	defer o.body.Close()
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": o.filename}))
	ct := o.info.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	c := echomw.GetEchoContext(o.ctx)
	rs, seekable := o.body.(io.ReadSeeker)
	if c == nil || !seekable {
		w.Header().Set("Content-Length", strconv.FormatInt(o.info.Size, 10))
		w.WriteHeader(http.StatusOK)
		_, err := io.Copy(w, o.body)
		return err
	}
	http.ServeContent(w, c.Request(), "", o.info.ModTime, rs)
	return nil
}
