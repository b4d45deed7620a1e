package storage_test

import (
	"path"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/loopwork/loopwork/internal/blob"
	"github.com/loopwork/loopwork/internal/platform/storage"
)

var (
	ours   = uuid.MustParse("0b9c2a56-3f1e-4d8a-9c7e-5a4b3c2d1e0f")
	theirs = uuid.MustParse("7e6d5c4b-3a29-4817-8f6e-5d4c3b2a1908")
)

// FuzzParseURI: the URIs the server writes into task outputs (storage.URI of a key) read back as that
// key, whatever characters a file name brings; whatever else a caller sends, an accepted URI names a key
// that stays under the caller's organization prefix, with no segment that climbs out of it.
func FuzzParseURI(f *testing.F) {
	for _, s := range []string{
		"storage://exports/report.csv",
		"storage://email/5c1e/6f2a/1-50% off #2.pdf",
		"storage://task-outputs/run?x=1",
		"STORAGE://a/b",
		"storage://org/" + ours.String() + "/exports/report.csv",
		"storage://org/" + theirs.String() + "/exports/report.csv",
		"storage://a/../../etc/passwd",
		"storage://./a", "storage:///etc/passwd", "storage://a//b", `storage://a\..\b`, "storage://",
		"storage:opaque", "http://example.com/x", "s3://bucket/exports/report.csv", "s3:///x", "s3://bucket",
		"://x", "storage://a\x00b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// What the server writes reads back as the same key exactly when the key is one it can store.
		if loc, err := storage.ParseURI(storage.URI(s)); (err == nil) != (blob.CheckKey(s) == nil) {
			t.Fatalf("key %q: CheckKey %v, ParseURI(URI(key)) %v", s, blob.CheckKey(s), err)
		} else if err == nil && (loc.Scheme != "storage" || loc.Key != s || loc.Bucket != "") {
			t.Fatalf("key %q read back as %+v", s, loc)
		}
		if bucket, key, ok := strings.Cut(s, "/"); ok && bucket != "" && blob.CheckKey(key) == nil {
			loc, err := storage.ParseURI("s3://" + s)
			if err != nil || loc != (storage.Location{Scheme: "s3", Bucket: bucket, Key: key}) {
				t.Fatalf("s3://%s read as %+v, %v", s, loc, err)
			}
		}

		loc, err := storage.ParseURI(s)
		if err != nil {
			return
		}
		scheme, rest, _ := strings.Cut(s, "://")
		switch {
		case strings.EqualFold(scheme, "storage"):
			if loc.Scheme != "storage" || loc.Key != rest || storage.URI(loc.Key) != "storage://"+rest {
				t.Fatalf("%q read as %+v", s, loc)
			}
		case strings.EqualFold(scheme, "s3"):
			if loc.Scheme != "s3" || loc.Bucket+"/"+loc.Key != rest {
				t.Fatalf("%q read as %+v", s, loc)
			}
		default:
			t.Fatalf("%q accepted with scheme %q", s, scheme)
		}
		// Whatever the key says (another organization's prefix, dots, slashes), the object it names is
		// inside the caller's prefix, and cleaning the path changes nothing.
		key := storage.OrgKey(ours, loc.Key)
		prefix := "org/" + ours.String() + "/"
		if !strings.HasPrefix(key, prefix) || path.Clean(key) != key || blob.CheckKey(key) != nil {
			t.Fatalf("%q names %q, outside %s", s, key, prefix)
		}
		if strings.HasPrefix(key, "org/"+theirs.String()) {
			t.Fatalf("%q names another organization's object %q", s, key)
		}
	})
}
