package tasks

// Small builders for the built-in schemas, so that each parameter reads as one line of intent rather than a
// nest of map literals.

type m = map[string]any

const draft = "https://json-schema.org/draft/2020-12/schema"

// object is a closed object schema: unknown properties are refused, so a misspelt parameter is reported instead
// of silently ignored.
func object(desc string, props m, required ...string) m {
	s := m{"$schema": draft, "type": "object", "description": desc, "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// output is an object schema that describes what a task produces; it is not closed, since readers should accept
// fields added later.
func output(desc string, props m, required ...string) m {
	s := m{"$schema": draft, "type": "object", "description": desc, "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func with(s m, kv ...any) m {
	for i := 0; i+1 < len(kv); i += 2 {
		s[kv[i].(string)] = kv[i+1]
	}
	return s
}

func str(desc string) m     { return m{"type": "string", "description": desc} }
func integer(desc string) m { return m{"type": "integer", "description": desc} }
func number(desc string) m  { return m{"type": "number", "description": desc} }
func boolean(desc string) m { return m{"type": "boolean", "description": desc} }
func anyValue(desc string) m {
	return m{"description": desc}
}

func uuidString(desc string) m { return m{"type": "string", "format": "uuid", "description": desc} }

func stringMap(desc string) m {
	return m{"type": "object", "description": desc, "additionalProperties": m{"type": "string"}}
}

func arrayOf(desc string, items m) m {
	return m{"type": "array", "description": desc, "items": items}
}

// seconds is a duration in seconds, more than zero and at most max.
func seconds(desc string, max int) m {
	return m{"type": "number", "exclusiveMinimum": 0, "maximum": max, "description": desc}
}

const (
	day   = 86400
	month = 30 * day
)
