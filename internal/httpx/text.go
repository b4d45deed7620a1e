package httpx

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// TextGuard refuses a request that carries a string PostgreSQL cannot store: bytes that are not UTF-8,
// the NUL character, or (in JSON) an unpaired UTF-16 surrogate escape. PostgreSQL refuses the first two
// in text and jsonb and the third in jsonb, and without this guard each would surface as a 500 from
// whichever query first received the value. It checks path parameters, query values and the strings
// (names and values) of a JSON body; multipart and binary bodies are files, not strings of the
// contract, and pass. It runs after the validator, so that authentication still comes first, and
// before the handler, so that an operation answering 501 refuses such input the same way.
func TextGuard(style ValidationStyle) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			var items []ValidationItem
			for i, name := range c.ParamNames() {
				val := c.ParamValues()[i]
				if u, err := url.PathUnescape(val); err == nil {
					val = u
				}
				if msg, typ := badText(val); msg != "" {
					items = append(items, ValidationItem{Loc: []any{"path", name}, Msg: msg, Type: typ, Input: printable(val)})
				}
			}
			if c.Request().URL.RawQuery != "" {
				items = append(items, queryText(c.QueryParams())...)
			}
			found, err := scanBody(c.Request())
			if err != nil {
				return err
			}
			if items = append(items, found...); len(items) > 0 {
				return refuse(style, items)
			}
			return next(c)
		}
	}
}

// queryText checks every value of every query parameter; the names are sorted only when one is bad,
// so that the answer is the same each time.
func queryText(q url.Values) []ValidationItem {
	var bad []string
	for name, vals := range q {
		for _, val := range vals {
			if msg, _ := badText(val); msg != "" {
				bad = append(bad, name)
				break
			}
		}
	}
	sort.Strings(bad)
	var items []ValidationItem
	for _, name := range bad {
		for _, val := range q[name] {
			if msg, typ := badText(val); msg != "" {
				items = append(items, ValidationItem{Loc: []any{"query", printable(name)}, Msg: msg, Type: typ, Input: printable(val)})
			}
		}
	}
	return items
}

// Reasons for refusing a string, shared by parameters and JSON bodies.
const (
	textType     = "string_unicode"
	msgNotUTF8   = "is not valid UTF-8"
	msgNUL       = "contains the NUL character (U+0000), which is not accepted"
	msgSurrogate = "contains an unpaired UTF-16 surrogate escape, which is not a character"
)

// badText says what is wrong with a decoded parameter value, or "" when nothing is. The loop is the
// fast path of every request: plain ASCII without NUL needs no decoding.
func badText(s string) (msg, typ string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == 0 || c >= utf8.RuneSelf {
			if !utf8.ValidString(s) {
				return msgNotUTF8, textType
			}
			if strings.IndexByte(s, 0) >= 0 {
				return msgNUL, textType
			}
			return "", ""
		}
	}
	return "", ""
}

// printable is s as it can be shown back in a JSON answer, shortened like other echoed input.
func printable(s string) string {
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// scanBody reads a JSON body, puts it back for the validator and the handler, and returns what is
// wrong with its strings.
func scanBody(r *http.Request) ([]ValidationItem, error) {
	if r.Body == nil || r.Body == http.NoBody || !isJSON(r.Header.Get(echo.HeaderContentType)) {
		return nil, nil
	}
	var body []byte
	var err error
	if n := r.ContentLength; n > 0 && n <= 64<<20 {
		// The size is known (and the body limit has checked it): one allocation instead of several.
		body = make([]byte, n)
		_, err = io.ReadFull(r.Body, body)
	} else {
		body, err = io.ReadAll(r.Body)
	}
	if err != nil {
		return nil, err // the body limit's 413, or a client that went away
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if !suspectJSON(body) {
		return nil, nil
	}
	return scanJSON(body), nil
}

// refuse is the interface's answer to request-validation failures.
func refuse(style ValidationStyle, items []ValidationItem) *Error {
	if style == Style422 {
		return &Error{Status: http.StatusUnprocessableEntity, Code: "validation_failed", Message: summary(items), Validation: items}
	}
	return &Error{Status: http.StatusBadRequest, Code: "validation_failed", Message: summary(items), Details: items}
}
