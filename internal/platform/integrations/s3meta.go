package integrations

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/loopwork/loopwork/internal/netguard"
)

// describeBucket lists the top-level entries of the credential's bucket on its S3-compatible service,
// every connection dialled through the guard.
func describeBucket(ctx context.Context, t Target) (string, error) {
	d := t.Secret.Data
	endpoint := strOf(d["endpoint"])
	if endpoint == "" {
		endpoint = "https://s3.amazonaws.com"
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("%w: the credential's endpoint is not an http(s) URL", ErrUpstream)
	}
	bucket := strOf(d["bucket"])
	if bucket == "" {
		return "", fmt.Errorf("%w: the credential names no bucket", ErrUpstream)
	}
	transport := &http.Transport{DialContext: t.Guard.DialContext, TLSHandshakeTimeout: 10 * time.Second}
	c, err := minio.New(u.Host, &minio.Options{Creds: credentials.NewStaticV4(strOf(d["access_key_id"]), strOf(d["secret_access_key"]), ""),
		Secure: u.Scheme == "https", Region: strOf(d["region"]), Transport: transport, BucketLookup: minio.BucketLookupPath})
	if err != nil {
		return "", fmt.Errorf("%w: %s", ErrUpstream, redact(err, d))
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var lines []string
	n := 0
	for obj := range c.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: false}) {
		if obj.Err != nil {
			if errors.Is(obj.Err, netguard.ErrBlocked) {
				return "", obj.Err
			}
			return "", fmt.Errorf("%w: %s", ErrUpstream, redact(obj.Err, d))
		}
		if n++; n > maxEntries {
			break
		}
		if strings.HasSuffix(obj.Key, "/") {
			lines = append(lines, fmt.Sprintf("  %s (folder)\n", obj.Key))
		} else {
			lines = append(lines, fmt.Sprintf("  %s (%d bytes)\n", obj.Key, obj.Size))
		}
	}
	// Services list objects before folders; names in order read better.
	sort.Strings(lines)
	var b strings.Builder
	fmt.Fprintf(&b, "Bucket %q on %s, top-level entries:\n", bucket, u.Host)
	b.WriteString(strings.Join(lines, ""))
	switch {
	case n > maxEntries:
		b.WriteString("(more entries not shown)\n")
	case n == 0:
		b.WriteString("  (empty)\n")
	}
	return b.String(), nil
}
