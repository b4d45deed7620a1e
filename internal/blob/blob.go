// Package blob stores files (exports, staged uploads, e-mail attachments, task outputs) behind one small
// interface, so the same code runs on local disk (the default, nothing to configure) and on any
// S3-compatible service. Objects are named by keys such as "org/<uuid>/exports/<name>.csv"; callers put
// the organization first in every key so one tenant's objects never share a prefix with another's.
package blob

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"
)

// ErrNotFound is returned (possibly wrapped) for an object that does not exist.
var ErrNotFound = errors.New("blob: object not found")

// ErrBadKey is returned for a key that is empty, absolute, or climbs out of the store with "..".
var ErrBadKey = errors.New("blob: invalid object key")

// Info describes a stored object.
type Info struct {
	Key         string
	Size        int64
	ContentType string
	ModTime     time.Time
}

// Store is what every backend provides.
type Store interface {
	// Put stores everything r yields under key. The object appears whole or not at all: a reader that
	// fails half way, or a process that dies, never leaves a partial object under key.
	Put(ctx context.Context, key string, r io.Reader, contentType string) (Info, error)
	// Open reads an object; the caller closes it.
	Open(ctx context.Context, key string) (io.ReadCloser, Info, error)
	// Stat describes an object without reading it.
	Stat(ctx context.Context, key string) (Info, error)
	// Delete removes an object; deleting a missing object is not an error.
	Delete(ctx context.Context, key string) error
	// URL returns a link that downloads the object without other credentials until ttl has passed.
	// filename, when set, is offered to the browser as the download's name.
	URL(ctx context.Context, key string, ttl time.Duration, filename string) (string, error)
	// URI is the object's storage URI: storage://<key> on local disk, s3://<bucket>/<key> on S3.
	URI(key string) string
}

// CheckKey rejects keys that could escape the store or address something other than an object.
func CheckKey(key string) error {
	if key == "" || strings.HasPrefix(key, "/") || strings.Contains(key, "\\") || strings.ContainsRune(key, 0) {
		return ErrBadKey
	}
	for _, part := range strings.Split(key, "/") {
		if part == "" || part == "." || part == ".." {
			return ErrBadKey
		}
	}
	return nil
}
