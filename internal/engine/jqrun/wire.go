package jqrun

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
)

// The parent and a child speak in frames: a 4-byte big-endian length, then that many bytes of JSON.

// request is one evaluation: the program's text, its input as JSON and the values of its variables as a
// Vars object (absent: $input null, $tasks {}).
type request struct {
	Expr  string          `json:"e"`
	Input json.RawMessage `json:"i"`
	Vars  json.RawMessage `json:"v,omitempty"`
}

// Vars are the values of a program's variables, as the engine hands them to a task: the execution's input
// ($input) and the outputs of completed tasks upstream by name ($tasks).
type Vars struct {
	Input json.RawMessage            `json:"input,omitempty"`
	Tasks map[string]json.RawMessage `json:"tasks,omitempty"`
}

// response is the first result of an evaluation as JSON (Value, absent when the program gave nothing
// or halted with null), or why it failed (Err), or that its result was too large (TooLarge). Retire
// says the child exits after this response (its CPU budget is nearly spent).
type response struct {
	Value    json.RawMessage `json:"v,omitempty"`
	Err      string          `json:"err,omitempty"`
	TooLarge bool            `json:"big,omitempty"`
	Retire   bool            `json:"bye,omitempty"`
}

// writeFrame writes v as one frame.
func writeFrame(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	buf := make([]byte, 4+len(b))
	binary.BigEndian.PutUint32(buf, uint32(len(b)))
	copy(buf[4:], b)
	_, err = w.Write(buf)
	return err
}

// readFrame reads one frame of at most max bytes into v; a longer frame is refused before it is read,
// so a frame's length alone can make no one allocate.
func readFrame(r io.Reader, max int64, v any) error {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return err
	}
	size := int64(binary.BigEndian.Uint32(n[:]))
	if size > max {
		return fmt.Errorf("a frame of %d bytes is longer than %d", size, max)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
