package jqrun

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/itchyny/gojq"
)

// inProcess evaluates in the calling process (Config.InProcess), as jq programs ran before the pool:
// the same compiled-program cache, result bound and errors as a child's, and the deadline through
// gojq's context, but nothing bounds the memory a program builds. Only a benchmark uses it, to
// measure the children's price beside them.
type inProcess struct {
	mu    sync.Mutex
	cache map[string]*gojq.Code
}

func (h *inProcess) eval(ctx context.Context, expr string, input, vars json.RawMessage, limit time.Duration, maxResult int64) (json.RawMessage, error) {
	h.mu.Lock()
	if h.cache == nil {
		h.cache = map[string]*gojq.Code{}
	}
	code, err := compiled(h.cache, expr)
	h.mu.Unlock()
	if err != nil {
		return nil, &EvalError{Msg: err.Error()}
	}
	runCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	res := first(runCtx, code, input, vars, maxResult)
	if res.Err != "" && runCtx.Err() != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(runCtx.Err(), context.DeadlineExceeded) {
			return nil, &LimitError{Limit: "time", Time: limit}
		}
	}
	return res.result(maxResult)
}
