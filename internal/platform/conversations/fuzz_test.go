package conversations

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// sseEvent is one event as a browser's EventSource dispatches it.
type sseEvent struct{ Type, Data, LastEventID string }

// readStream interprets an event stream the way the WHATWG HTML standard ("Interpreting an event
// stream") tells clients to: lines end at CRLF, LF or CR; a blank line dispatches; a line starting with
// a colon is a comment; one space after the field's colon is dropped; data lines are joined with LF; an
// id with NUL is ignored; an event without data is not dispatched, and neither is one the stream ends in.
func readStream(stream string) []sseEvent {
	stream = strings.TrimPrefix(stream, "\uFEFF")
	var out []sseEvent
	var typ, data, lastID strings.Builder
	for {
		i := strings.IndexAny(stream, "\r\n")
		if i < 0 {
			return out // an unterminated last line is discarded
		}
		line := stream[:i]
		if stream[i] == '\r' && i+1 < len(stream) && stream[i+1] == '\n' {
			i++
		}
		stream = stream[i+1:]
		if line == "" {
			if data.Len() > 0 {
				out = append(out, sseEvent{Type: typ.String(), Data: strings.TrimSuffix(data.String(), "\n"), LastEventID: lastID.String()})
				if out[len(out)-1].Type == "" {
					out[len(out)-1].Type = "message"
				}
			}
			typ.Reset()
			data.Reset()
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			typ.Reset()
			typ.WriteString(value)
		case "data":
			data.WriteString(value + "\n")
		case "id":
			if !strings.Contains(value, "\x00") {
				lastID.Reset()
				lastID.WriteString(value)
			}
		}
	}
}

// FuzzFrame: whatever name, id and data an event is given, a standard client reads back exactly that
// event (the data's line endings as LF, the only form the format has), then the next one; a name or id
// that the format cannot carry is refused instead of being sent as something else.
func FuzzFrame(f *testing.F) {
	f.Add("message", "0192f7e4-93b5-7c39-a2d5-4f1e0c8b7a61", []byte(`{"body":{"type":"message","text":"hi"}}`))
	f.Add("done", "done:6f1c", []byte(`{"conversation_id":"6f1c","phase":"draft"}`))
	f.Add("", "", []byte(""))
	f.Add(" status", "a:b", []byte("line one\nline two\r\nthree\rfour\r"))
	f.Add("data", "id", []byte("\n\n"))
	f.Add("evil\nevent: x", "1\r2", []byte("data: forged\n\nid: 9"))
	f.Add("e", "x\x00y", []byte(":\uFEFF"))
	f.Add("e\xff", "", []byte("\xc3"))
	f.Fuzz(func(t *testing.T, name, id string, data []byte) {
		text, err := frame(name, id, data)
		refuse := strings.ContainsAny(name, "\r\n") || strings.ContainsAny(id, "\r\n\x00") ||
			!utf8.ValidString(name) || !utf8.ValidString(id) || !utf8.Valid(data)
		if refuse != (err != nil) {
			t.Fatalf("frame(%q, %q, %q): error %v", name, id, data, err)
		}
		if err != nil {
			return
		}
		next, err := frame("done", "done:1", []byte("{}"))
		if err != nil {
			t.Fatal(err)
		}
		got := readStream(": keep-alive\n\n" + text + next)
		want := sseEvent{Type: name, Data: strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n"), LastEventID: id}
		if want.Type == "" {
			want.Type = "message"
		}
		if len(got) != 2 || got[0] != want || got[1] != (sseEvent{"done", "{}", "done:1"}) {
			t.Fatalf("frame(%q, %q, %q) = %q, read back as %+v", name, id, data, text, got)
		}
	})
}
