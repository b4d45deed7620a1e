package flows

import (
	"bytes"
	"encoding/json"
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

func (r flowReply) write(w http.ResponseWriter) error { return writeJSON(w, r.status, r.flowJSON) }

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
