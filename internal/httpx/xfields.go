package httpx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// HeaderXFields is the /v1 field-mask request header.
const HeaderXFields = "X-Fields"

// Limits of a mask: the contract's maxLength of the header, and a nesting depth no response needs.
const (
	maxMaskLength = 2000
	maxMaskDepth  = 32
)

// Mask is a parsed flask-restx field mask: the fields kept at one level of a JSON body, each with the
// mask of its value (nil keeps the whole value). All (`*`) keeps every field of the level, the named
// ones still masked by their nested mask.
type Mask struct {
	All    bool
	Fields map[string]*Mask
}

// ParseMask reads a mask such as `id,name`, `{id,jobs{id,status}}` or `*`: comma-separated field
// names, a nested mask in braces after a name, optional outer braces, blanks between tokens ignored,
// a trailing comma tolerated (as flask-restx does). An empty mask (`""`, `{}`) is nil: no filtering.
func ParseMask(s string) (*Mask, error) {
	if len(s) > maxMaskLength {
		return nil, fmt.Errorf("is longer than %d characters", maxMaskLength)
	}
	p := &maskParser{s: s}
	p.space()
	braced := p.at('{')
	if braced {
		p.i++
	}
	m, err := p.list(1)
	if err != nil {
		return nil, err
	}
	if braced {
		if p.eof() {
			return nil, fmt.Errorf("misses the closing '}' of the mask")
		}
		p.i++
	}
	if p.space(); !p.eof() {
		return nil, fmt.Errorf("has an unexpected %q at position %d", p.s[p.i], p.i+1)
	}
	if !m.All && len(m.Fields) == 0 {
		return nil, nil
	}
	return m, nil
}

type maskParser struct {
	s string
	i int
}

func (p *maskParser) eof() bool      { return p.i >= len(p.s) }
func (p *maskParser) at(c byte) bool { return !p.eof() && p.s[p.i] == c }
func isMaskSpace(c byte) bool        { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isMaskDelimiter(c byte) bool    { return c == '{' || c == '}' || c == ',' || isMaskSpace(c) }

func (p *maskParser) space() {
	for !p.eof() && isMaskSpace(p.s[p.i]) {
		p.i++
	}
}

// list reads fields up to a closing brace or the end, which it leaves for the caller.
func (p *maskParser) list(depth int) (*Mask, error) {
	if depth > maxMaskDepth {
		return nil, fmt.Errorf("is nested more than %d levels deep", maxMaskDepth)
	}
	m := &Mask{Fields: map[string]*Mask{}}
	afterComma, empty := false, true
	for {
		p.space()
		switch {
		case p.eof() || p.at('}'):
			return m, nil
		case p.at(','):
			if empty || afterComma {
				return nil, fmt.Errorf("has an unexpected ',' at position %d", p.i+1)
			}
			p.i++
			afterComma = true
			continue
		case p.at('{'):
			return nil, fmt.Errorf("has a '{' at position %d that follows no field name", p.i+1)
		case !empty && !afterComma:
			return nil, fmt.Errorf("misses a ',' before position %d", p.i+1)
		}
		start := p.i
		for !p.eof() && !isMaskDelimiter(p.s[p.i]) {
			p.i++
		}
		name := p.s[start:p.i]
		p.space()
		var sub *Mask
		if p.at('{') {
			if name == "*" {
				return nil, fmt.Errorf("has a nested mask after '*' at position %d", p.i+1)
			}
			p.i++
			var err error
			if sub, err = p.list(depth + 1); err != nil {
				return nil, err
			}
			if p.eof() {
				return nil, fmt.Errorf("misses the closing '}' of the mask of %q", name)
			}
			p.i++
		}
		if old, seen := m.Fields[name]; seen {
			sub = union(old, sub)
		}
		if name == "*" {
			m.All = true
		} else {
			m.Fields[name] = sub
		}
		afterComma, empty = false, false
	}
}

// union combines two masks given for one name: the whole value wins over a nested mask, and two
// nested masks keep what either keeps.
func union(a, b *Mask) *Mask {
	if a == nil || b == nil {
		return nil
	}
	out := &Mask{All: a.All || b.All, Fields: make(map[string]*Mask, len(a.Fields)+len(b.Fields))}
	for k, v := range a.Fields {
		out.Fields[k] = v
	}
	for k, v := range b.Fields {
		if old, seen := out.Fields[k]; seen {
			v = union(old, v)
		}
		out.Fields[k] = v
	}
	return out
}

// Apply filters a JSON document: the mask applies to an object, and to each element of an array;
// fields keep their order, names the mask lists but the object lacks are ignored, and a nested mask on
// a scalar or null leaves the value as it is.
func (m *Mask) Apply(doc []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := m.apply(&buf, doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (m *Mask) apply(buf *bytes.Buffer, raw []byte) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
		buf.Write(raw)
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	open, err := dec.Token()
	if err != nil {
		return err
	}
	isObject := open == json.Delim('{')
	buf.WriteByte(raw[0])
	for first := true; dec.More(); {
		var key string
		if isObject {
			t, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ = t.(string)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		sub, named := m, true
		if isObject {
			sub, named = m.Fields[key]
			if !named && !m.All {
				continue
			}
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		if isObject {
			k, _ := json.Marshal(key)
			buf.Write(k)
			buf.WriteByte(':')
		}
		if !named || sub == nil {
			buf.Write(v)
		} else if err := sub.apply(buf, v); err != nil {
			return err
		}
	}
	if isObject {
		buf.WriteByte('}')
	} else {
		buf.WriteByte(']')
	}
	return nil
}

// XFields is the /v1 middleware of the X-Fields header: a malformed mask is refused (400 naming the
// header) before the handler runs, so nothing happens for a request that cannot be answered; the JSON
// body of a 2xx reply is buffered, masked and sent with its new length. Errors, empty and non-JSON
// replies pass through as they are, unbuffered.
func XFields() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			values, present := c.Request().Header[HeaderXFields]
			if !present {
				return next(c)
			}
			mask, err := ParseMask(strings.Join(values, ","))
			if err != nil {
				return InvalidV1([]any{"header", HeaderXFields}, "value_error", "the field mask "+err.Error())
			}
			if mask == nil {
				return next(c)
			}
			res := c.Response()
			w := &maskWriter{ResponseWriter: res.Writer, mask: mask}
			res.Writer = w
			herr := next(c)
			res.Writer = w.ResponseWriter
			if n, err := w.finish(); err != nil {
				return err
			} else if w.buffering {
				res.Size = int64(n)
			}
			return herr
		}
	}
}

// maskWriter decides at WriteHeader whether to buffer: only a 2xx JSON reply is.
type maskWriter struct {
	http.ResponseWriter
	mask      *Mask
	status    int
	decided   bool
	buffering bool
	buf       bytes.Buffer
}

func (w *maskWriter) WriteHeader(code int) {
	if w.decided {
		return
	}
	w.decided, w.status = true, code
	if code >= 200 && code < 300 && code != http.StatusNoContent && isJSON(w.Header().Get(echo.HeaderContentType)) {
		w.buffering = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *maskWriter) Write(b []byte) (int, error) {
	if !w.decided {
		w.WriteHeader(http.StatusOK)
	}
	if w.buffering {
		return w.buf.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes through for unbuffered replies; a buffered one is sent whole by finish.
func (w *maskWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && !w.buffering {
		f.Flush()
	}
}

func (w *maskWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish sends a buffered reply, masked; a body that is not valid JSON after all goes out unchanged.
func (w *maskWriter) finish() (int, error) {
	if !w.buffering {
		return 0, nil
	}
	out := w.buf.Bytes()
	if json.Valid(out) {
		if masked, err := w.mask.Apply(out); err == nil {
			out = append(masked, '\n')
		}
	}
	w.Header().Set(echo.HeaderContentLength, strconv.Itoa(len(out)))
	w.ResponseWriter.WriteHeader(w.status)
	return w.ResponseWriter.Write(out)
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}
