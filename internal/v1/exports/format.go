package exports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// cell is a value as one CSV field: nothing for null, strings as they are, other values as JSON.
func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case *string:
		if x == nil {
			return ""
		}
		return *x
	case bool:
		return strconv.FormatBool(x)
	case *bool:
		if x == nil {
			return ""
		}
		return strconv.FormatBool(*x)
	case int64:
		return strconv.FormatInt(x, 10)
	case *float64:
		if x == nil {
			return ""
		}
		return string(appendJSONFloat(nil, *x))
	case json.Number:
		return string(x)
	case rawJSON:
		return string(appendCompact(nil, x))
	}
	b, err := marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// csvWriter writes RFC 4180 rows with a chosen delimiter, quoting every field or only those that
// need it (a delimiter, a quote, a line break, or leading or trailing space).
type csvWriter struct {
	w        *bufio.Writer
	delim    byte
	quoteAll bool
}

func (c csvWriter) row(fields []string) error {
	for i, f := range fields {
		if i > 0 {
			c.w.WriteByte(c.delim)
		}
		if c.quoteAll || c.needsQuotes([]byte(f)) {
			c.w.WriteByte('"')
			c.w.WriteString(strings.ReplaceAll(f, `"`, `""`))
			c.w.WriteByte('"')
		} else {
			c.w.WriteString(f)
		}
	}
	_, err := c.w.WriteString("\r\n")
	return err
}

// rowBytes is row for fields held as bytes (nil is an empty field).
func (c csvWriter) rowBytes(fields [][]byte) error {
	for i, f := range fields {
		if i > 0 {
			c.w.WriteByte(c.delim)
		}
		if c.quoteAll || c.needsQuotes(f) {
			c.w.WriteByte('"')
			for {
				i := bytes.IndexByte(f, '"')
				if i < 0 {
					break
				}
				c.w.Write(f[:i+1])
				c.w.WriteByte('"')
				f = f[i+1:]
			}
			c.w.Write(f)
			c.w.WriteByte('"')
		} else {
			c.w.Write(f)
		}
	}
	_, err := c.w.WriteString("\r\n")
	return err
}

func (c csvWriter) needsQuotes(f []byte) bool {
	if len(f) == 0 {
		return false
	}
	if f[0] == ' ' || f[0] == '\t' || f[len(f)-1] == ' ' || f[len(f)-1] == '\t' {
		return true
	}
	for i := 0; i < len(f); i++ {
		switch f[i] {
		case c.delim, '"', '\r', '\n':
			return true
		}
	}
	return false
}

// columns collects the union of the records' keys in a stable order: the fixed columns, then the
// input's, then the response's (annotations after what they annotate), then feedback and history,
// each section in the order keys were first seen.
type columns struct {
	seen     map[string]bool
	sections [4][]string
	// filled are the keys that had a value other than null in some record.
	filled map[string]bool
}

func newColumns() *columns { return &columns{seen: map[string]bool{}, filled: map[string]bool{}} }

func section(key string) int {
	switch {
	case key == "input" || strings.HasPrefix(key, "input."):
		return 1
	case key == "response" || strings.HasPrefix(key, "response."):
		return 2
	case key == "feedback" || key == "feedback_tags" || key == "history":
		return 3
	}
	return 0
}

func (c *columns) add(rec object) {
	for _, m := range rec {
		c.addKey(m.Key)
		if m.Value != nil {
			c.filled[m.Key] = true
		}
	}
}

func (c *columns) addKey(k string) {
	if !c.seen[k] {
		c.seen[k] = true
		s := section(k)
		c.sections[s] = append(c.sections[s], k)
	}
}

func (c *columns) order(postfixes []string) []string {
	out := append([]string{}, c.sections[0]...)
	out = append(out, c.bare(c.sections[1], "input")...)
	out = append(out, orderAnnotations(c.bare(c.sections[2], "response"), postfixes)...)
	return append(out, c.sections[3]...)
}

// bare leaves out the section's own column (a whole input or response in one field) when the jobs
// that had one had null there and others' values were flattened into dotted columns: a job without a
// response has empty response.* fields, not a `response` column that is empty in every row.
func (c *columns) bare(keys []string, name string) []string {
	if len(keys) < 2 || c.filled[name] || !c.seen[name] {
		return keys
	}
	out := make([]string, 0, len(keys)-1)
	for _, k := range keys {
		if k != name {
			out = append(out, k)
		}
	}
	return out
}

// fields lays a record out along the header's columns.
func fields(header []string, rec object) []string {
	at := make(map[string]any, len(rec))
	for _, m := range rec {
		at[m.Key] = m.Value
	}
	out := make([]string, len(header))
	for i, h := range header {
		if v, ok := at[h]; ok {
			out[i] = cell(v)
		}
	}
	return out
}
