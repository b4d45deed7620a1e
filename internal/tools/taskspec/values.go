package main

// The values the document is built from: ordered objects, and plain JSON values with integers kept.

import (
	"bytes"
	"encoding/json"
)

// object is a mapping whose keys keep their order in the YAML written.
type object []field

type field struct {
	key string
	val any
}

func (o object) get(key string) (any, bool) {
	for _, f := range o {
		if f.key == key {
			return f.val, true
		}
	}
	return nil, false
}

// plain normalizes a value built in Go (ints, typed slices, nested maps) into what encoding/json decodes,
// with integers kept as int64 so that they are written as integers.
func plain(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return numbers(out)
}

func numbers(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		return x.Float64()
	case map[string]any:
		for k, e := range x {
			n, err := numbers(e)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
	case []any:
		for i, e := range x {
			n, err := numbers(e)
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
	}
	return v, nil
}
