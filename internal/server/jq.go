package server

import (
	"github.com/loopwork/loopwork/internal/config"
	"github.com/loopwork/loopwork/internal/engine/jqrun"
)

// newJQPool is the pool of child processes that tenants' jq programs run in, sized and bounded by the
// LOOPWORK_JQ_ settings (which Validate has checked).
func newJQPool(cfg config.Config) (*jqrun.Pool, error) {
	memory, err := config.ParseBytes(cfg.JQMemory)
	if err != nil {
		return nil, err
	}
	result, err := config.ParseBytes(cfg.JQMaxResult)
	if err != nil {
		return nil, err
	}
	return jqrun.New(jqrun.Config{Size: cfg.JQWorkers, Memory: memory, MaxResult: result, MaxTime: cfg.JQMaxTime})
}
