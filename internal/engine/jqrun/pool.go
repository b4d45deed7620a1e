// Package jqrun evaluates tenants' jq programs where they can harm no one: in child processes of the
// server with a memory bound (RLIMIT_AS), killed at their deadline and replaced. gojq has neither a
// memory limit nor a way to stop a builtin that runs long, so only a process of its own truly bounds
// a program; a small pool of warm children keeps the cost of that to one round trip over a pipe.
//
// A child is the running executable started again with a marker in its environment, which this
// package's init recognises (so it works in the server and in test binaries alike): it serves
// length-prefixed JSON requests on stdin and answers on stdout, caching compiled programs by text.
package jqrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"
)

// Config sizes a Pool.
type Config struct {
	// Size is how many evaluations run at once, each in a child of its own (0: 2 × GOMAXPROCS).
	Size int
	// Memory bounds the memory one evaluation may use, in bytes (0: 256 MB).
	Memory int64
	// MaxResult bounds the JSON of one result, in bytes (0: 16 MB).
	MaxResult int64
	// MaxTime is the longest deadline an evaluation may be given (0: 30 s); a child's lifetime CPU
	// budget, the backstop behind the deadlines, is a multiple of it.
	MaxTime time.Duration
	// InProcess evaluates in the calling process, as every jq program ran before this pool: bounded by
	// its deadline but not in memory. It exists so that a benchmark can show, in one run, what the
	// children cost (see internal/bench); no setting of the server reaches it.
	InProcess bool
}

// Defaults of Config.
const (
	DefaultMemory    = 256 << 20
	DefaultMaxResult = 16 << 20
	DefaultMaxTime   = 30 * time.Second
)

// Pool evaluates jq programs in a bounded set of child processes.
type Pool struct {
	cfg   Config
	exe   string
	spec  string
	slots chan struct{} // one per evaluation under way
	idle  chan *child   // warm children waiting for work

	mu     sync.Mutex
	closed bool
	live   map[*child]struct{}

	here inProcess // Config.InProcess
}

// New returns a pool of at most cfg.Size children, started as they are needed.
func New(cfg Config) (*Pool, error) {
	if cfg.Size <= 0 {
		cfg.Size = 2 * runtime.GOMAXPROCS(0)
	}
	if cfg.Memory <= 0 {
		cfg.Memory = DefaultMemory
	}
	if cfg.MaxResult <= 0 {
		cfg.MaxResult = DefaultMaxResult
	}
	if cfg.MaxTime <= 0 {
		cfg.MaxTime = DefaultMaxTime
	}
	exe, err := executable()
	if err != nil {
		return nil, fmt.Errorf("jq evaluation needs its own executable: %w", err)
	}
	eval := uint64(cfg.MaxTime.Seconds() + 1)
	spec := fmt.Sprintf("mem=%d,result=%d,cpu=%d,eval=%d", cfg.Memory, cfg.MaxResult, max(20*eval, 600), eval)
	return &Pool{cfg: cfg, exe: exe, spec: spec, slots: make(chan struct{}, cfg.Size),
		idle: make(chan *child, cfg.Size), live: map[*child]struct{}{}}, nil
}

// Config is the pool's configuration, defaults filled in.
func (p *Pool) Config() Config { return p.cfg }

// Eval runs expr on input and returns its first result: null when it gives none or halts with null.
// The program gets at most limit (capped at MaxTime) once a child has taken it; past it, or past the
// memory bound, or with a result larger than MaxResult, the error is a *LimitError. A program that
// fails on its own gives an *EvalError. ctx ending stops the evaluation at once.
func (p *Pool) Eval(ctx context.Context, expr string, input any, limit time.Duration) (any, error) {
	return p.EvalWith(ctx, expr, input, nil, limit)
}

// EvalWith is Eval with the values of the variables $input and $tasks (see Vars).
func (p *Pool) EvalWith(ctx context.Context, expr string, input any, vars json.RawMessage, limit time.Duration) (any, error) {
	raw, err := json.Marshal(input)
	if err != nil {
		return nil, &EvalError{Msg: "the input is not JSON: " + err.Error()}
	}
	out, err := p.EvalJSON(ctx, expr, raw, vars, limit)
	if err != nil || out == nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// EvalJSON is EvalWith on an input that is JSON already; the result is JSON too (nil for null).
func (p *Pool) EvalJSON(ctx context.Context, expr string, input, vars json.RawMessage, limit time.Duration) (json.RawMessage, error) {
	if limit <= 0 || limit > p.cfg.MaxTime {
		limit = p.cfg.MaxTime
	}
	if p.cfg.InProcess {
		return p.here.eval(ctx, expr, input, vars, limit, p.cfg.MaxResult)
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-p.slots }()
	c, err := p.take()
	if err != nil {
		return nil, err
	}
	res, err := c.eval(ctx, request{Expr: expr, Input: input, Vars: vars}, limit, p.cfg.MaxResult+1024)
	if err != nil {
		return nil, p.fail(ctx, c, err, limit)
	}
	if res.Retire {
		p.discard(c)
	} else {
		p.give(c)
	}
	return res.result(p.cfg.MaxResult)
}

// result is what EvalJSON returns for a response.
func (r response) result(maxResult int64) (json.RawMessage, error) {
	switch {
	case r.TooLarge:
		return nil, &LimitError{Limit: "result size", Bytes: maxResult}
	case r.Err != "":
		return nil, &EvalError{Msg: r.Err}
	case string(r.Value) == "null":
		return nil, nil
	}
	return r.Value, nil
}

// fail ends a child whose round trip failed and says why as the evaluation's error: the deadline
// passed (or ctx ended) and it is killed, or it died on its own, of its memory bound or its CPU budget.
func (p *Pool) fail(ctx context.Context, c *child, err error, limit time.Duration) error {
	if ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) {
		p.discard(c)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &LimitError{Limit: "time", Time: limit}
	}
	d := c.death()
	p.discard(c)
	switch d {
	case diedOfTime:
		return &LimitError{Limit: "time", Time: limit}
	case diedOfMemory:
		return &LimitError{Limit: "memory", Bytes: p.cfg.Memory}
	}
	return fmt.Errorf("the jq evaluator stopped: %w (%s)", err, c.stderr.String())
}

// take is a warm child, or a new one.
func (p *Pool) take() (*child, error) {
	select {
	case c := <-p.idle:
		return c, nil
	default:
	}
	return p.spawn()
}

// give returns a child that finished its evaluation to the idle ones.
func (p *Pool) give(c *child) {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if !closed {
		select {
		case p.idle <- c:
			return
		default:
		}
	}
	p.discard(c)
}

// discard kills a child and starts a warm one in its place, so that the next evaluation finds one.
func (p *Pool) discard(c *child) {
	c.kill()
	p.mu.Lock()
	delete(p.live, c)
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return
	}
	go func() {
		n, err := p.spawn()
		if err == nil {
			p.give(n)
		}
	}()
}

// spawn starts a child and keeps track of it.
func (p *Pool) spawn() (*child, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("the jq evaluator is shut down")
	}
	p.mu.Unlock()
	c, err := start(p.exe, childEnv+"="+p.spec)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.kill()
		return nil, errors.New("the jq evaluator is shut down")
	}
	p.live[c] = struct{}{}
	return c, nil
}

// Close kills every child; evaluations under way fail.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	live := p.live
	p.live = map[*child]struct{}{}
	p.mu.Unlock()
	for c := range live {
		c.kill()
	}
}
