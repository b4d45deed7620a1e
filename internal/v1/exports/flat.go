package exports

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// member is one flattened key and its value as raw JSON text (PostgreSQL's, not yet compacted).
type member struct {
	key string
	raw []byte
}

// flattenRaw appends the members of a JSON object, nested objects flattened into dotted keys, reading
// the text once without building values. A value that is not an object is one member under prefix.
// names, when not nil, keeps the dotted keys already made, so that rows with the same keys share them.
func flattenRaw(out []member, prefix string, raw []byte, names *keyNames) []member {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return append(out, member{prefix, raw})
	}
	return flattenObject(out, prefix, raw, i, names)
}

func flattenObject(out []member, prefix string, raw []byte, i int, names *keyNames) []member {
	i = skipSpace(raw, i+1) // past '{'
	for i < len(raw) && raw[i] != '}' {
		kEnd := stringEnd(raw, i)
		name := names.dotted(prefix, raw[i:kEnd])
		i = skipSpace(raw, kEnd)
		i = skipSpace(raw, i+1) // past ':'
		vEnd := valueEnd(raw, i)
		if raw[i] == '{' && skipSpace(raw, i+1) < len(raw) && raw[skipSpace(raw, i+1)] != '}' {
			out = flattenObject(out, name, raw, i, names)
		} else {
			out = append(out, member{name, raw[i:vEnd]})
		}
		i = skipSpace(raw, vEnd)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return out
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index after the string literal that starts at i.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd is the index after the JSON value that starts at i.
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' {
		j++
	}
	return j
}

// keyNames are dotted keys made before, by their prefix and key literal: an export's rows mostly have the
// same keys, and making each anew cost two strings per key and row. At most keyNamesMax are kept.
type keyNames struct {
	m       map[string]string
	scratch []byte
}

const keyNamesMax = 10_000

// dotted is prefix.key for the string literal lit.
func (k *keyNames) dotted(prefix string, lit []byte) string {
	if k == nil {
		return prefix + "." + unquote(lit)
	}
	k.scratch = append(append(append(k.scratch[:0], prefix...), 0), lit...)
	if name, ok := k.m[string(k.scratch)]; ok {
		return name
	}
	name := prefix + "." + unquote(lit)
	if k.m == nil {
		k.m = map[string]string{}
	}
	if len(k.m) < keyNamesMax {
		k.m[string(k.scratch)] = name
	}
	return name
}

// unquote reads a JSON string literal; most need no unescaping and cost one copy.
func unquote(lit []byte) string {
	inner := lit[1 : len(lit)-1]
	for _, c := range inner {
		if c == '\\' {
			var s string
			_ = json.Unmarshal(lit, &s)
			return s
		}
	}
	return string(inner)
}

// cellOf is a raw value as a CSV field: a string without its quotes, null as nothing, anything else as
// compact JSON.
func cellOf(dst, raw []byte) []byte {
	if len(raw) == 0 || string(raw) == "null" {
		return dst
	}
	if raw[0] == '"' {
		return append(dst, unquote(raw)...)
	}
	return appendCompact(dst, raw)
}

// appendJSONString writes s as a JSON string literal.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}

// headJSON writes the fixed members of a job as the start of a JSON object (without the closing brace).
func headJSON(dst []byte, j job) []byte {
	dst = append(dst, `{"id":`...)
	dst = strconv.AppendInt(dst, j.ID, 10)
	dst = append(dst, `,"status":`...)
	dst = appendJSONString(dst, j.Status)
	dst = append(dst, `,"batch_id":`...)
	dst = appendOptString(dst, j.BatchID)
	dst = append(dst, `,"tags":`...)
	dst = appendCompact(dst, j.Tags)
	dst = append(dst, `,"created_at":"`...)
	dst = j.CreatedAt.UTC().AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, `","completed_at":`...)
	if j.CompletedAt != nil {
		dst = append(dst, '"')
		dst = j.CompletedAt.UTC().AppendFormat(dst, time.RFC3339Nano)
		dst = append(dst, '"')
	} else {
		dst = append(dst, "null"...)
	}
	for _, f := range [...]struct {
		name string
		v    *float64
	}{{`,"score":`, j.Score}, {`,"trust_score":`, j.TrustScore}} {
		dst = append(dst, f.name...)
		if f.v != nil {
			dst = appendJSONFloat(dst, *f.v)
		} else {
			dst = append(dst, "null"...)
		}
	}
	dst = append(dst, `,"correct":`...)
	if j.Correct != nil {
		dst = strconv.AppendBool(dst, *j.Correct)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"reviewed":`...)
	dst = appendOptString(dst, j.Reviewed)
	dst = append(dst, `,"edited":`...)
	dst = strconv.AppendBool(dst, j.Edited)
	dst = append(dst, `,"relabeled":`...)
	dst = strconv.AppendBool(dst, j.Relabeled)
	dst = append(dst, `,"error":`...)
	dst = appendOptString(dst, j.Error)
	dst = append(dst, `,"metadata":`...)
	return appendRaw(dst, j.Metadata)
}

func appendOptString(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return appendJSONString(dst, *s)
}

func appendRaw(dst, raw []byte) []byte {
	if raw == nil {
		return append(dst, "null"...)
	}
	return appendCompact(dst, raw)
}
