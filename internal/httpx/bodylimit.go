package httpx

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/loopwork/loopwork/internal/config"
)

// RouteLimit gives one route ("POST /api/agent/transcription", with echo's :param names) a body limit of
// its own, for uploads larger than ordinary requests; Setting names what raises it.
type RouteLimit struct {
	Route   string
	Limit   int64
	Setting string
}

// BodyLimit refuses a request body larger than limit (a size such as 10M) with a 413 that says the
// limit and the setting that raises it; routes may have limits of their own. A declared Content-Length
// over the limit is refused before anything is read; a body of unknown length is cut off where it
// passes the limit, and whoever reads it gets the same error (the validator hands it on as it is, see
// bodyTooLarge).
func BodyLimit(limit string, routes ...RouteLimit) echo.MiddlewareFunc {
	n, err := config.ParseBytes(limit)
	if err != nil || n <= 0 {
		panic(fmt.Sprintf("httpx: body limit %q is not a positive size", limit))
	}
	ordinary := tooLargeError(n, "LOOPWORK_BODY_LIMIT")
	type rule struct {
		limit int64
		err   *Error
	}
	own := make(map[string]rule, len(routes))
	for _, r := range routes {
		own[r.Route] = rule{r.Limit, tooLargeError(r.Limit, r.Setting)}
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			max, tooLarge := n, ordinary
			if r, ok := own[req.Method+" "+c.Path()]; ok {
				max, tooLarge = r.limit, r.err
			}
			if req.ContentLength > max {
				return tooLarge
			}
			if req.Body != nil && req.Body != http.NoBody {
				req.Body = &limitedBody{ReadCloser: req.Body, left: max, err: tooLarge, header: c.Response().Header()}
			}
			return next(c)
		}
	}
}

func tooLargeError(n int64, setting string) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: "request_too_large",
		Message: fmt.Sprintf("request body larger than %s (%s)", sizeText(n), setting)}
}

// limitedBody reads up to left bytes and fails with err when the body goes on beyond them. Then the
// rest of the body is still on the connection, and net/http, which no longer sees its own body type
// on the request, would not know: the answer closes the connection, or the rest would be read as the
// next request.
type limitedBody struct {
	io.ReadCloser
	left   int64
	err    *Error
	over   bool
	header http.Header
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.over {
		return 0, b.err
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte more than allowed tells a body at the limit from one beyond it
	}
	n, err := b.ReadCloser.Read(p)
	if int64(n) <= b.left {
		b.left -= int64(n)
		return n, err
	}
	b.over = true
	b.header.Set("Connection", "close")
	return int(b.left), b.err
}

// bodyTooLarge finds the limit's refusal among the errors of whatever read the body.
func bodyTooLarge(err error) *Error {
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusRequestEntityTooLarge {
		return e
	}
	return nil
}

// sizeText writes a byte count the way LOOPWORK_BODY_LIMIT is usually set: 10 MiB, 512 KiB, 1000 bytes.
func sizeText(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
