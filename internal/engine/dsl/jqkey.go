package dsl

import "strings"

// jqKey returns the key under which the compile result of a jq expression is cached within one validation.
// Compiling is the costly part of validating a definition, and generated flows repeat the same expression with
// different constants (`.score > 3`, `.score > 7`). Whether an expression compiles does not depend on the values of
// its constants (gojq folds no arithmetic at compile time and checks regular expressions only when they run), so
// the key keeps the expression's shape and drops its values:
//   - in a number, every nonzero digit becomes 1 (zeros stay, so 0, 00 and 10 keep their distinct spellings);
//   - a string literal of plain printable ASCII becomes "" (strings with escapes, interpolation or other characters
//     are kept as they are).
//
// A digit is left alone when it follows a letter, `_`, `$`, `.` or a byte outside ASCII, since it may be part of
// a name (`a1`, `$x2`) or of a number starting with a dot. An expression with a comment is keyed as it is. Only
// successful compilations are taken from the cache; an expression that fails is compiled again on its own, so its
// message is exactly its own.
func jqKey(expr string) string {
	if !strings.ContainsAny(expr, "0123456789\"") || strings.ContainsRune(expr, '#') {
		return expr
	}
	b := []byte(expr)
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			end := plainString(b, i+1)
			if end < 0 {
				return expr // an escape or an unusual character: keep the whole expression as it is
			}
			b = append(b[:i+1], b[end:]...)
			i++ // past the closing quote
		case c >= '1' && c <= '9' && (i == 0 || !nameByte(b[i-1])):
			for j := i; j < len(b) && b[j] >= '0' && b[j] <= '9'; j++ {
				if b[j] != '0' {
					b[j] = '1'
				}
				i = j
			}
		}
	}
	return string(b)
}

// plainString returns the index of the quote closing a string that starts at i, or -1 when the string holds
// anything but printable ASCII other than a backslash.
func plainString(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i
		case c == '\\' || c < 0x20 || c > 0x7e:
			return -1
		}
	}
	return -1
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '.' || c >= 0x80
}
