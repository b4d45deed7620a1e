package flows

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/loopwork/loopwork/gen/platformapi"
)

// flowJSON is a FlowResponse whose definition is JSON text, written as stored: a definition of
// 10,000 tasks is several megabytes, and decoding it only to encode it again would cost most of a read.
// The outer Definition field hides the embedded one when encoded.
type flowJSON struct {
	platformapi.FlowResponse
	Definition json.RawMessage `json:"definition"`
}

// flowReply answers one flow, with the status of the operation (201 for create, 200 otherwise). It is
// the typed response of every operation that returns one FlowResponse.
type flowReply struct {
	flowJSON
	status int
}

func (r flowReply) write(w http.ResponseWriter) error {
	b, err := r.flowJSON.encode()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.status)
	_, err = w.Write(b)
	return err
}

// encode writes the definition into the encoded response as it is: encoding/json would scan a
// RawMessage of megabytes once more to check it, and the definition is known to be a JSON object
// (PostgreSQL stored it, or the contract checked the request).
func (f flowJSON) encode() ([]byte, error) {
	rest, err := json.Marshal(f.FlowResponse) // its own definition field is nil: "definition":null
	if err != nil {
		return nil, err
	}
	const null = `"definition":null`
	i := bytes.Index(rest, []byte(null))
	if i < 0 {
		return nil, errors.New("flows: encoded response has no definition")
	}
	out := make([]byte, 0, len(rest)+len(f.Definition))
	out = append(out, rest[:i]...)
	out = append(out, `"definition":`...)
	out = append(out, f.Definition...)
	return append(out, rest[i+len(null):]...), nil
}

func (r flowReply) VisitCreateFlowResponse(w http.ResponseWriter) error { return r.write(w) }
func (r flowReply) VisitGetFlowResponse(w http.ResponseWriter) error    { return r.write(w) }
func (r flowReply) VisitUpdateFlowResponse(w http.ResponseWriter) error { return r.write(w) }
func (r flowReply) VisitModifyFlowResponse(w http.ResponseWriter) error { return r.write(w) }
func (r flowReply) VisitUpdateFlowDefinitionResponse(w http.ResponseWriter) error {
	return r.write(w)
}

// flowListReply is FlowListResponse with flows of flowJSON.
type flowListReply struct {
	Flows []flowJSON `json:"flows"`
	Total int        `json:"total"`
	Page  int        `json:"page"`
	Limit int        `json:"limit"`
}

func (r flowListReply) VisitListFlowsResponse(w http.ResponseWriter) error {
	return writeJSON(w, 200, r)
}

// versionsReply is the list of a flow's versions.
type versionsReply []flowJSON

func (r versionsReply) VisitListFlowVersionsResponse(w http.ResponseWriter) error {
	return writeJSON(w, 200, r)
}

// writeJSON encodes before writing anything, so that an encoding error is still answered as an error.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, err := buf.WriteTo(w)
	return err
}

var (
	_ platformapi.CreateFlowResponseObject           = flowReply{}
	_ platformapi.GetFlowResponseObject              = flowReply{}
	_ platformapi.UpdateFlowResponseObject           = flowReply{}
	_ platformapi.ModifyFlowResponseObject           = flowReply{}
	_ platformapi.UpdateFlowDefinitionResponseObject = flowReply{}
	_ platformapi.ListFlowsResponseObject            = flowListReply{}
	_ platformapi.ListFlowVersionsResponseObject     = versionsReply{}
)
