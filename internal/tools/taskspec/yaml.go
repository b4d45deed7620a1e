package main

// Writing the document: YAML built node by node, so that keys keep their order and long text is folded,
// then read back and compared with what was meant.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// toNode builds the YAML of a value: an object's keys in their order, a map's sorted (yaml's own order).
// Long descriptions are written folded (>-), which needs no quotes or escapes whatever they hold.
func toNode(v any) (*yaml.Node, error) {
	switch x := v.(type) {
	case object:
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, f := range x {
			val, err := toNode(f.val)
			if err != nil {
				return nil, err
			}
			if s, ok := f.val.(string); ok && f.key == "description" && len(s) > 100 && !strings.Contains(s, "\n") {
				val.Style = yaml.FoldedStyle
			}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: f.key}, val)
		}
		return n, nil
	case []any:
		// A list of scalars (required, enum) is written on one line, as the area files write it.
		n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, e := range x {
			val, err := toNode(e)
			if err != nil {
				return nil, err
			}
			if val.Kind != yaml.ScalarNode || strings.Contains(val.Value, "\n") {
				n.Style = 0
			}
			n.Content = append(n.Content, val)
		}
		return n, nil
	}
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	return &n, nil
}

// sameAfterReading checks that the YAML written reads back as the document meant, as JSON sees both: a
// string that YAML would read as another type or with other white space fails here rather than in the
// contract.
func sameAfterReading(data []byte, doc object) error {
	var back any
	if err := yaml.Unmarshal(data, &back); err != nil {
		return err
	}
	got, err := json.Marshal(back)
	if err != nil {
		return err
	}
	want, err := json.Marshal(asMaps(doc))
	if err != nil {
		return err
	}
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		return err
	}
	if err := json.Unmarshal(want, &b); err != nil {
		return err
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Errorf("the YAML written does not read back as the document")
	}
	return nil
}

// asMaps turns objects into maps, for comparing without their order.
func asMaps(v any) any {
	switch x := v.(type) {
	case object:
		m := make(map[string]any, len(x))
		for _, f := range x {
			m[f.key] = asMaps(f.val)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = asMaps(e)
		}
		return out
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = asMaps(e)
		}
		return m
	}
	return v
}
