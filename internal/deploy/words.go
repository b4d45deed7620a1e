package deploy

import (
	"fmt"
	"strings"
)

// SplitWords splits a command line as a POSIX shell does for the constructs the Dockerfile uses:
// blanks separate words, single quotes keep everything, double quotes keep everything but a backslash
// before " or \. Expansions are left as written.
func SplitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unclosed ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+end])
			i, inWord = i+1+end, true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unclosed \" in %q", s)
			}
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// Interpolate expands compose's ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?message} and $$ the
// way `docker compose` does, taking variables from lookup. A missing required variable is an error
// naming it, as compose refuses to start then.
func Interpolate(s string, lookup func(string) (string, bool)) (string, error) {
	var out strings.Builder
	for {
		i := strings.IndexByte(s, '$')
		if i < 0 || i == len(s)-1 {
			out.WriteString(s)
			return out.String(), nil
		}
		out.WriteString(s[:i])
		s = s[i+1:]
		switch {
		case s[0] == '$':
			out.WriteByte('$')
			s = s[1:]
			continue
		case s[0] != '{':
			end := 0
			for end < len(s) && (s[end] == '_' || s[end] >= 'A' && s[end] <= 'Z' || s[end] >= 'a' && s[end] <= 'z' || s[end] >= '0' && s[end] <= '9') {
				end++
			}
			v, _ := lookup(s[:end])
			out.WriteString(v)
			s = s[end:]
			continue
		}
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return "", fmt.Errorf("unclosed ${ in %q", s)
		}
		expr := s[1:end]
		s = s[end+1:]
		name, op, arg := expr, "", ""
		if j := strings.IndexAny(expr, ":-?"); j >= 0 {
			name = expr[:j]
			rest := expr[j:]
			for _, o := range []string{":-", ":?", "-", "?"} {
				if strings.HasPrefix(rest, o) {
					op, arg = o, rest[len(o):]
					break
				}
			}
		}
		v, set := lookup(name)
		switch op {
		case ":-":
			if v == "" {
				v = arg
			}
		case "-":
			if !set {
				v = arg
			}
		case ":?", "?":
			if !set || op == ":?" && v == "" {
				return "", fmt.Errorf("required variable %s is missing a value: %s", name, arg)
			}
		}
		out.WriteString(v)
	}
}

// Environ is a lookup for Interpolate over a fixed set of variables.
func Environ(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}
