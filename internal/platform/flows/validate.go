package flows

import (
	"encoding/json"

	"github.com/loopwork/loopwork/gen/platformapi"
	"github.com/loopwork/loopwork/internal/engine/dsl"
	"github.com/loopwork/loopwork/internal/httpx"
)

// refused are the problems a definition is not stored with: the limits that keep a definition within
// what the server can store and validate, and a tenant's JSON schema that refers outside itself (kept
// out of storage so that no later change to how schemas are compiled could ever load it). Every other problem is stored and reported, so that a flow
// can be saved while it is being built.
var refused = map[string]bool{dsl.KindTooDeep: true, dsl.KindTooManyTasks: true, dsl.KindTooManyEdges: true,
	dsl.KindExternalRef: true}

// checked is a definition with its validation result.
type checked struct {
	def    map[string]any
	result dsl.Result
}

func (s *Service) check(def map[string]any) checked {
	return checked{def: def, result: dsl.Validate(def, s.registry)}
}

// checkRaw decodes a definition that came in a request (the contract has made sure it is an object) and
// checks it; numbers stay as written.
func (s *Service) checkRaw(raw json.RawMessage) (checked, error) {
	def, err := decodeObject(raw)
	if err != nil {
		return checked{}, err
	}
	return s.check(def), nil
}

func (c checked) valid() bool { return len(c.result.Errors) == 0 }

// checkResult is the outcome of checkAsync.
type checkResult struct {
	chk checked
	err error
}

// checkAsync runs checkRaw in a goroutine of its own; the channel is buffered, so the goroutine ends
// even when nobody waits for its result.
func (s *Service) checkAsync(raw json.RawMessage) <-chan checkResult {
	out := make(chan checkResult, 1)
	go func() {
		chk, err := s.checkRaw(raw)
		out <- checkResult{chk, err}
	}()
	return out
}

// refusal is the 422 for a definition beyond the limits, or nil. fromBody says the definition came in
// the request body, whose locations start with "body".
func (c checked) refusal(fromBody bool) error {
	var items []httpx.ValidationItem
	for _, e := range c.result.Errors {
		if refused[e.Type] {
			items = append(items, item(e, fromBody))
		}
	}
	if items == nil {
		return nil
	}
	return httpx.InvalidItems(items)
}

// publishRefusal is the 422 for publishing a definition with problems: a published version is always
// valid, so the engine and /v1 apps may run it as it is.
func (c checked) publishRefusal(fromBody bool, statusLoc []any) error {
	items := []httpx.ValidationItem{{Loc: statusLoc, Type: "publish_invalid",
		Msg: "a flow whose definition has validation errors cannot be published; fix them or keep it a draft"}}
	for _, e := range c.result.Errors {
		items = append(items, item(e, fromBody))
	}
	return httpx.InvalidItems(items)
}

func item(e dsl.Error, fromBody bool) httpx.ValidationItem {
	loc := e.Loc
	if fromBody {
		loc = append([]any{"body"}, loc...)
	}
	return httpx.ValidationItem{Loc: loc, Msg: e.Msg, Type: e.Type, Input: e.Input}
}

// details are the problems as the contract's ErrorDetails, locations from the definition on.
func details(r dsl.Result) []platformapi.ErrorDetails { return asDetails(r.Errors) }

// warnings are the warnings as the contract's ErrorDetails.
func warnings(r dsl.Result) []platformapi.ErrorDetails { return asDetails(r.Warnings) }

func asDetails(list []dsl.Error) []platformapi.ErrorDetails {
	out := make([]platformapi.ErrorDetails, 0, len(list))
	for _, e := range list {
		d := platformapi.ErrorDetails{Type: e.Type, Loc: e.Loc, Msg: e.Msg, Input: e.Input}
		if e.Ctx != nil {
			ctx := e.Ctx
			d.Ctx = &ctx
		}
		out = append(out, d)
	}
	return out
}
