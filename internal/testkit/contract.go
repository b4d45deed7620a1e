package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/gen/v1api"
)

// contract holds the routers of both served documents, built once per test binary.
type contract struct {
	routers []routers.Router
}

var (
	contractOnce sync.Once
	contractVal  *contract
	contractErr  error
)

func init() {
	// Pages, streams and files are checked for status and content type; their bodies are not JSON.
	for _, ct := range []string{"text/html", "text/event-stream", "application/octet-stream", "text/csv", "text/css", "application/javascript", "image/png", "image/svg+xml"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
	}
}

func loadContract() (*contract, error) {
	contractOnce.Do(func() {
		c := &contract{}
		for _, raw := range [][]byte{platformapi.OpenAPIJSON, v1api.OpenAPIJSON} {
			doc, err := openapi3.NewLoader().LoadFromData(raw)
			if err != nil {
				contractErr = err
				return
			}
			doc.Servers = nil
			r, err := gorillamux.NewRouter(doc)
			if err != nil {
				contractErr = err
				return
			}
			c.routers = append(c.routers, r)
		}
		contractVal = c
	})
	return contractVal, contractErr
}

// ContractTransport checks every response the server sends against the contract: status code listed,
// headers and body matching the schema. A mismatch fails the test, whatever the test itself asserts.
type ContractTransport struct {
	T    testing.TB
	Base http.RoundTripper
}

func (ct *ContractTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil {
		reqBody, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	base := ct.Base
	if base == nil {
		base = http.DefaultTransport
	}
	res, err := base.RoundTrip(req)
	if err != nil {
		return res, err
	}
	body, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	if verr := CheckResponse(req, reqBody, res.StatusCode, res.Header, body); verr != nil {
		ct.T.Errorf("contract violation: %s %s -> %d: %v\nbody: %s", req.Method, req.URL.Path, res.StatusCode, verr, truncate(body))
	}
	return res, nil
}

// CheckResponse validates one exchange against whichever document describes the route. A request for a
// path no document describes must answer a 404 or 405 ErrorResponse.
func CheckResponse(req *http.Request, reqBody []byte, status int, header http.Header, body []byte) error {
	c, err := loadContract()
	if err != nil {
		return fmt.Errorf("load contract: %w", err)
	}
	if header.Get("X-Request-ID") == "" {
		return fmt.Errorf("response has no X-Request-ID header")
	}
	r := req.Clone(context.Background())
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	for _, rt := range c.routers {
		route, params, err := rt.FindRoute(r)
		if err != nil {
			continue
		}
		in := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{
				Request: r, PathParams: params, Route: route,
				Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
			},
			Status: status,
			Header: header,
			Body:   io.NopCloser(bytes.NewReader(body)),
			Options: &openapi3filter.Options{
				IncludeResponseStatus: true,
				MultiError:            true,
			},
		}
		if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
			return err
		}
		return nil
	}
	if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
		return fmt.Errorf("no documented route matches, yet the server answered %d", status)
	}
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
		RequestID string `json:"request_id"`
	}
	if req.Method != http.MethodHead {
		if err := json.Unmarshal(body, &e); err != nil || e.Error.Message == "" || e.RequestID == "" {
			return fmt.Errorf("undocumented route answered %d without an ErrorResponse body", status)
		}
	}
	return nil
}

func truncate(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}
