package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Local keeps objects as files under a directory and hands out links to the server's own download
// route, signed with an HMAC key so that a link names one object until it expires and nothing else.
type Local struct {
	dir    string
	signer *Signer
	// linkBase answers the absolute URL links start with, e.g. https://host/api/storage/download/; it
	// takes the context because a link made during a request should use the host the client called.
	linkBase func(context.Context) string
}

// NewLocal stores objects under dir (created when missing). linkBase answers where the download route
// is served; a token is appended to it.
func NewLocal(dir string, signer *Signer, linkBase func(context.Context) string) (*Local, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("blob: create %s: %w", dir, err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return &Local{dir: abs, signer: signer, linkBase: linkBase}, nil
}

func (l *Local) path(key string) (string, error) {
	if err := CheckKey(key); err != nil {
		return "", err
	}
	return filepath.Join(l.dir, filepath.FromSlash(key)), nil
}

// Put writes to a temporary file beside the target and renames it into place once complete, so a
// reader (or a download link) never sees a partial object.
func (l *Local) Put(ctx context.Context, key string, r io.Reader, contentType string) (Info, error) {
	p, err := l.path(key)
	if err != nil {
		return Info{}, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return Info{}, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".part-*")
	if err != nil {
		return Info{}, err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	n, err := io.Copy(tmp, ctxReader{ctx, r})
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Info{}, err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return Info{}, err
	}
	return Info{Key: key, Size: n, ContentType: contentType, ModTime: time.Now()}, nil
}

func (l *Local) Open(_ context.Context, key string) (io.ReadCloser, Info, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, Info{}, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, Info{}, notFound(err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, Info{}, err
	}
	return f, l.info(key, st), nil
}

func (l *Local) Stat(_ context.Context, key string) (Info, error) {
	p, err := l.path(key)
	if err != nil {
		return Info{}, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return Info{}, notFound(err)
	}
	return l.info(key, st), nil
}

func (l *Local) Delete(_ context.Context, key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// URL signs a link to the server's download route; the object is not checked here, the route answers
// 404 for a link to an object that is gone.
func (l *Local) URL(ctx context.Context, key string, ttl time.Duration, filename string) (string, error) {
	if err := CheckKey(key); err != nil {
		return "", err
	}
	return l.linkBase(ctx) + l.signer.Sign(key, filename, time.Now().Add(ttl)), nil
}

func (l *Local) URI(key string) string { return "storage://" + key }

// Signer is the key that checks this store's download tokens, for the route that serves them.
func (l *Local) Signer() *Signer { return l.signer }

func (l *Local) info(key string, st fs.FileInfo) Info {
	return Info{Key: key, Size: st.Size(), ModTime: st.ModTime(), ContentType: typeOf(key)}
}

// ownTypes are the content types of the files loopwork itself names, which the links to them promise.
// The system's MIME table, which decides the rest, may not know .jsonl at all (a JSON Lines export was
// then served as application/octet-stream) or may add a charset to text/csv.
var ownTypes = map[string]string{".jsonl": "application/jsonl", ".csv": "text/csv"}

// typeOf is the content type a local object is served with, found from its key's extension: the disk
// keeps no content type beside the file.
func typeOf(key string) string {
	ext := strings.ToLower(filepath.Ext(key))
	if t, ok := ownTypes[ext]; ok {
		return t
	}
	return mime.TypeByExtension(ext)
}

func notFound(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return ErrNotFound
	}
	return err
}

// ctxReader stops a long copy when its request or job is canceled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
