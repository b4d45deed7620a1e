package executors

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/loopwork/loopwork/internal/netguard"
)

// MaxResponseBytes bounds the body an http_request task reads; a larger response fails the attempt.
// The output is stored as jsonb and handed to the next task, so it has to stay a reasonable size.
const MaxResponseBytes = 10 << 20

// defaultHTTPTimeout is timeout_seconds when the task does not set it (the schema's default).
const defaultHTTPTimeout = 30 * time.Second

// HTTPRequest calls the URL of its parameters through client, which must be the SSRF-guarded
// outbound client: the target is the tenant's choice. Each request carries the attempt's key as
// Idempotency-Key. 2xx and 3xx complete the attempt; 408, 429 and 5xx fail it and the task's retry
// applies; other statuses fail the task at once, as a repeat would get the same answer. The url, the
// values of headers and query, and the body are templates rendered by q on the task's input and variables.
func HTTPRequest(client *http.Client, creds Credentials, q JQ) Executor {
	client = unbounded(client)
	return Func(func(ctx context.Context, in Input) (Result, error) {
		p, err := filled(ctx, q, in)
		if err != nil {
			return Result{}, err
		}
		timeout := defaultHTTPTimeout
		if s, ok := p["timeout_seconds"].(float64); ok && s > 0 {
			timeout = time.Duration(s * float64(time.Second))
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		req, err := newRequest(ctx, p, in.Key, in.Data)
		if err != nil {
			return Result{}, Permanent(err)
		}
		do := client
		if id, ok := p["credential_id"].(string); ok && id != "" {
			auth, err := authenticate(ctx, creds, in, req, id)
			if err != nil {
				return Result{}, err
			}
			do = withAuthorization(client, auth)
		}
		res, err := do.Do(req)
		if err != nil {
			return Result{}, requestError(ctx, err, timeout)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(io.LimitReader(res.Body, MaxResponseBytes+1))
		if err != nil {
			return Result{}, requestError(ctx, fmt.Errorf("reading the response: %w", err), timeout)
		}
		if len(body) > MaxResponseBytes {
			return Result{}, Permanent(fmt.Errorf("the response body is larger than %d MiB, the most a task reads",
				MaxResponseBytes>>20))
		}
		if err := statusError(res.StatusCode, body); err != nil {
			return Result{}, err
		}
		headers := make(map[string]string, len(res.Header))
		for k, v := range res.Header {
			headers[k] = strings.Join(v, ", ")
		}
		return Result{Output: map[string]any{"status": res.StatusCode, "headers": headers,
			"body": decodeBody(res.Header.Get("Content-Type"), body)}}, nil
	})
}

// unbounded copies the outbound client without its own time limits: the task's timeout_seconds
// (at most ten minutes) bounds the request instead, through the context. The transport keeps its
// guarded dialer, so every connection is still checked.
func unbounded(c *http.Client) *http.Client {
	cc := *c
	cc.Timeout = 0
	if tr, ok := c.Transport.(*http.Transport); ok {
		tr = tr.Clone()
		tr.ResponseHeaderTimeout = 0
		cc.Transport = tr
	}
	return &cc
}

// newRequest builds the request of the task's parameters, which the flow's validation has checked
// against the schema; what it still refuses cannot succeed on a retry.
func newRequest(ctx context.Context, p map[string]any, key string, input any) (*http.Request, error) {
	raw, _ := p["url"].(string)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("url: %q is not an absolute http or https URL", raw)
	}
	if q, ok := p["query"].(map[string]any); ok && len(q) > 0 {
		values := u.Query()
		for k, v := range q {
			values.Add(k, fmt.Sprint(v))
		}
		u.RawQuery = values.Encode()
	}
	method, _ := p["method"].(string)
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	contentType := ""
	b, present := p["body"]
	if !present && (method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch) {
		// No body given: what the task received is what it sends on.
		b, present = input, input != nil
	}
	if present && b != nil && method != http.MethodGet && method != http.MethodHead {
		if s, isString := b.(string); isString {
			body = strings.NewReader(s)
		} else {
			data, err := json.Marshal(b)
			if err != nil {
				return nil, fmt.Errorf("body: %w", err)
			}
			body, contentType = bytes.NewReader(data), "application/json"
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "loopwork")
	req.Header.Set("Idempotency-Key", key)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if h, ok := p["headers"].(map[string]any); ok {
		for k, v := range h {
			req.Header.Set(k, fmt.Sprint(v))
		}
	}
	return req, nil
}

// requestError says why no response came. A refused target fails for good; anything else (a
// connection reset, a timeout) may pass on the next attempt.
func requestError(ctx context.Context, err error, timeout time.Duration) error {
	if errors.Is(err, netguard.ErrBlocked) {
		return Permanent(fmt.Errorf("the request was refused: %w (private, loopback and link-local targets are "+
			"not allowed on this server)", netguard.ErrBlocked))
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no complete response within %s (timeout_seconds)", timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the method and URL are in the task's parameters already
	}
	return fmt.Errorf("the request failed: %w", err)
}

// statusError is the error a status stands for, nil for a status that completes the attempt.
func statusError(status int, body []byte) error {
	if status < 400 {
		return nil
	}
	err := fmt.Errorf("the server answered %d %s%s", status, http.StatusText(status), excerpt(body))
	if status >= 500 || status == http.StatusTooManyRequests || status == http.StatusRequestTimeout {
		return err
	}
	return Permanent(err)
}

// excerpt is the start of an error response, which usually says what was wrong.
func excerpt(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	if s == "" {
		return ""
	}
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return ": " + s
}

// decodeBody is the body as JSON when the content type says JSON and it parses, otherwise as text.
func decodeBody(contentType string, body []byte) any {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "application/json" || strings.HasSuffix(mt, "+json") {
		var v any
		if json.Unmarshal(body, &v) == nil {
			return v
		}
	}
	return strings.ToValidUTF8(string(body), "\uFFFD")
}
