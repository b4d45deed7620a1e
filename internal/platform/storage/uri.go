package storage

import (
	"errors"
	"strings"

	"github.com/loopwork/loopwork/internal/blob"
)

// Problems of a storage URI; ResolveStorageUri answers each with 422.
var (
	ErrNotURI    = errors.New("not a storage URI: use storage://<key>")
	ErrBadScheme = errors.New("unsupported scheme")
	ErrBadKey    = errors.New("not an object key: no empty, . or .. segments, no leading /")
)

// URI is how task outputs and stored messages name an organization's object of key rel: the key
// verbatim after the scheme, as the contract describes it ("the part of a storage:// URI after the
// scheme"), so that ParseURI gives back whatever characters the key holds.
func URI(rel string) string { return "storage://" + rel }

// Location is what a storage URI names: a key relative to the organization and, for s3://, the bucket.
type Location struct {
	Scheme string // "storage" or "s3"
	Bucket string // s3:// only
	Key    string
}

// ParseURI reads storage://<key> and s3://<bucket>/<key>. The key is the rest of the text verbatim, not
// URL-decoded: keys carry file names such as "50% off #2.pdf", which a URL parser would cut at '#' or
// decode at '%', so that a URI the server issued would not name its own object. The scheme is matched
// without regard to case; a key must pass blob.CheckKey, which keeps it inside the organization's prefix.
func ParseURI(s string) (Location, error) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || scheme == "" {
		return Location{}, ErrNotURI
	}
	loc := Location{Scheme: strings.ToLower(scheme), Key: rest}
	switch loc.Scheme {
	case "storage":
	case "s3":
		bucket, key, ok := strings.Cut(rest, "/")
		if !ok || bucket == "" {
			return Location{}, ErrNotURI
		}
		loc.Bucket, loc.Key = bucket, key
	default:
		return Location{}, ErrBadScheme
	}
	if blob.CheckKey(loc.Key) != nil {
		return Location{}, ErrBadKey
	}
	return loc, nil
}
