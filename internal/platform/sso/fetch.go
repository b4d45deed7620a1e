package sso

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/loopwork/loopwork/internal/httpx"
	"github.com/loopwork/loopwork/internal/netguard"
)

// maxMetadataBytes bounds a fetched metadata document. Metadata of one identity provider is a few
// kilobytes; the limit keeps a hostile server from making us buffer an endless body.
const maxMetadataBytes = 1 << 20

// metadata is a checked metadata document and where it came from.
type metadata struct {
	url      *string // nil when the document was given inline
	xml      string
	hash     string // hex SHA-256 of xml
	entityID string
}

var (
	locURL = []any{"body", "metadata_url"}
	locXML = []any{"body", "metadata_xml"}
)

// errInsecureRedirect stops a fetch that an https server redirects to plain http.
var errInsecureRedirect = errors.New("redirect to a non-https URL")

// loadMetadata fetches and checks metadata from an https URL, or checks a given document. Exactly one
// of rawURL and doc is set; problems are 422s located at the field that caused them.
func (s *Service) loadMetadata(ctx context.Context, rawURL, doc *string) (*metadata, error) {
	if rawURL == nil {
		return checkedMetadata(nil, []byte(*doc), locXML)
	}
	data, err := s.fetch(ctx, *rawURL)
	if err != nil {
		return nil, err
	}
	return checkedMetadata(rawURL, data, locURL)
}

func checkedMetadata(from *string, data []byte, loc []any) (*metadata, error) {
	id, err := parseMetadata(data)
	if err != nil {
		return nil, httpx.Invalid(loc, "value_error", "invalid metadata: "+err.Error())
	}
	sum := sha256.Sum256(data)
	return &metadata{url: from, xml: string(data), hash: hex.EncodeToString(sum[:]), entityID: id}, nil
}

// fetch GETs an https metadata URL with the SSRF-guarded client. The guard checks every address that
// is dialled, redirects included; redirects must stay on https as well.
func (s *Service) fetch(ctx context.Context, rawURL string) ([]byte, error) {
	u, err := url.Parse(rawURL)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "":
		return nil, httpx.Invalid(locURL, "value_error", "metadata_url must be an absolute https URL")
	case !strings.EqualFold(u.Scheme, "https"):
		return nil, httpx.Invalid(locURL, "value_error", "metadata_url must use https")
	case u.User != nil:
		return nil, httpx.Invalid(locURL, "value_error", "metadata_url must not contain credentials")
	}
	client := *s.d.HTTPClient
	guarded := client.CheckRedirect
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Scheme != "https" {
			return errInsecureRedirect
		}
		if guarded != nil {
			return guarded(req, via)
		}
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, httpx.Invalid(locURL, "value_error", "metadata_url is not a valid URL")
	}
	req.Header.Set("Accept", "application/samlmetadata+xml, application/xml;q=0.9, text/xml;q=0.8, */*;q=0.1")
	res, err := client.Do(req)
	if err != nil {
		return nil, fetchError(ctx, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, notFetched(fmt.Sprintf("the server answered %d", res.StatusCode))
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxMetadataBytes+1))
	if err != nil {
		return nil, fetchError(ctx, err)
	}
	if len(data) > maxMetadataBytes {
		return nil, notFetched("the document is larger than 1 MiB")
	}
	return data, nil
}

// fetchError says why a fetch failed without echoing resolver or dialler internals.
func fetchError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err() // the caller went away; not the URL's fault
	}
	var dnsErr *net.DNSError
	var netErr net.Error
	var certErr *tls.CertificateVerificationError
	switch {
	case errors.Is(err, netguard.ErrBlocked):
		return httpx.Invalid(locURL, "value_error",
			"metadata_url is not allowed: it points to a private, loopback, link-local or otherwise non-public address")
	case errors.Is(err, errInsecureRedirect):
		return notFetched("it redirects to a URL that does not use https")
	case errors.As(err, &certErr):
		return notFetched("its TLS certificate is not valid")
	case errors.As(err, &dnsErr):
		return notFetched("its host name does not resolve")
	case errors.As(err, &netErr) && netErr.Timeout():
		return notFetched("the request timed out")
	}
	return notFetched("the connection failed")
}

func notFetched(why string) error {
	return httpx.Invalid(locURL, "value_error", "metadata_url could not be fetched: "+why)
}
