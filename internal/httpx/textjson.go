package httpx

import (
	"encoding/json"
	"unicode/utf8"
)

// maxTextFindings bounds the items of one answer; a body full of bad strings needs no list of all.
const maxTextFindings = 20

// suspectJSON is the fast path of TextGuard: a body of ASCII without NUL, whose only \u escapes are
// neither \u0000 nor in the surrogate range, holds nothing to refuse. Most bodies pass here with one
// pass over their bytes.
func suspectJSON(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == 0 || c >= utf8.RuneSelf:
			return true
		case c == '\\':
			if i+5 < len(b) && b[i+1] == 'u' {
				h := b[i+2 : i+6]
				if string(h) == "0000" || (h[0]|0x20 == 'd' && hexValue(h[1]) >= 8) {
					return true
				}
			}
			i++ // the escaped character: "\\u0000" is a backslash and the text u0000
		}
	}
	return false
}

// jsonScan walks a JSON document far enough to know the location of every string, and records the
// strings PostgreSQL would refuse. It does not check the document otherwise: the validator has
// refused a malformed one already, and on anything it does not understand it stops.
type jsonScan struct {
	b     []byte
	i     int
	path  []any
	found []ValidationItem
	bad   bool // the document is malformed; stop
}

// JSONStorable reports whether PostgreSQL's jsonb takes a valid JSON document as it is: a query value
// that holds JSON (a filter's value compared as jsonb) is checked here, since TextGuard checks only that
// the value is text.
func JSONStorable(b []byte) bool { return !suspectJSON(b) || len(scanJSON(b)) == 0 }

func scanJSON(b []byte) []ValidationItem {
	s := &jsonScan{b: b, path: []any{"body"}}
	s.value()
	return s.found
}

func (s *jsonScan) value() {
	s.space()
	if s.bad || s.i >= len(s.b) || len(s.found) >= maxTextFindings {
		s.bad = true
		return
	}
	switch s.b[s.i] {
	case '{':
		s.object()
	case '[':
		s.array()
	case '"':
		if msg := s.str(); msg != "" {
			s.report(s.path, msg)
		}
	default:
		// A number, true, false or null: everything up to the next delimiter.
		for s.i < len(s.b) && !isDelim(s.b[s.i]) {
			s.i++
		}
	}
}

func (s *jsonScan) object() {
	s.i++ // {
	if s.space(); s.at('}') {
		s.i++
		return
	}
	for !s.bad {
		s.space()
		if !s.at('"') {
			s.bad = true
			return
		}
		start := s.i
		msg := s.str()
		name := fieldName(s.b[start:s.i])
		s.path = append(s.path, name)
		if msg != "" {
			s.report(s.path, "the name of this field "+msg)
		}
		if s.space(); !s.at(':') {
			s.bad = true
			return
		}
		s.i++
		s.value()
		s.path = s.path[:len(s.path)-1]
		if !s.next('}') {
			return
		}
	}
}

func (s *jsonScan) array() {
	s.i++ // [
	if s.space(); s.at(']') {
		s.i++
		return
	}
	for n := 0; !s.bad; n++ {
		s.path = append(s.path, n)
		s.value()
		s.path = s.path[:len(s.path)-1]
		if !s.next(']') {
			return
		}
	}
}

// next consumes the comma before another member (true) or the closing bracket (false).
func (s *jsonScan) next(closing byte) bool {
	s.space()
	switch {
	case s.at(','):
		s.i++
		return true
	case s.at(closing):
		s.i++
	default:
		s.bad = true
	}
	return false
}

// str consumes a string and says what is wrong with it, or "". Escapes are checked as written, since
// encoding/json would turn \u0000 into a NUL and an unpaired surrogate silently into U+FFFD.
func (s *jsonScan) str() string {
	s.i++ // "
	problem := ""
	note := func(msg string) {
		if problem == "" {
			problem = msg
		}
	}
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return problem
		case c == '\\':
			if s.i+1 < len(s.b) && s.b[s.i+1] == 'u' {
				r, ok := s.hex4(s.i + 2)
				switch {
				case !ok:
					s.bad = true
					return problem
				case r == 0:
					note(msgNUL)
				case r >= 0xD800 && r < 0xDC00:
					if s.lowSurrogate(s.i + 6) {
						s.i += 6 // the pair is one character; skip its first half here
					} else {
						note(msgSurrogate)
					}
				case r >= 0xDC00 && r < 0xE000:
					note(msgSurrogate)
				}
				s.i += 6
				continue
			}
			s.i += 2
		case c == 0:
			note(msgNUL)
			s.i++
		case c < utf8.RuneSelf:
			s.i++
		default:
			r, size := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && size == 1 {
				note(msgNotUTF8)
			}
			s.i += size
		}
	}
	s.bad = true
	return problem
}

// lowSurrogate reports whether a \uDC00–\uDFFF escape starts at i.
func (s *jsonScan) lowSurrogate(i int) bool {
	if i+1 >= len(s.b) || s.b[i] != '\\' || s.b[i+1] != 'u' {
		return false
	}
	r, ok := s.hex4(i + 2)
	return ok && r >= 0xDC00 && r < 0xE000
}

func (s *jsonScan) hex4(i int) (rune, bool) {
	if i+4 > len(s.b) {
		return 0, false
	}
	var r rune
	for _, c := range s.b[i : i+4] {
		v := hexValue(c)
		if v < 0 {
			return 0, false
		}
		r = r<<4 | rune(v)
	}
	return r, true
}

// name decodes a field name for the location; a name that is itself bad is shown as well as JSON can.
func fieldName(raw []byte) string {
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return string(raw)
	}
	return name
}

func (s *jsonScan) report(path []any, msg string) {
	if len(s.found) < maxTextFindings {
		s.found = append(s.found, ValidationItem{Loc: append([]any{}, path...), Msg: msg, Type: textType})
	}
}

func (s *jsonScan) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *jsonScan) at(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }

func isDelim(c byte) bool {
	switch c {
	case ',', ']', '}', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

func hexValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return int(c|0x20-'a') + 10
	}
	return -1
}
