package jqrun

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/itchyny/gojq"
	"golang.org/x/sys/unix"

	"github.com/loopwork/loopwork/internal/engine/dsl"
)

// childEnv marks a process started by a Pool as one of its children. It is the only variable of the
// child's environment and carries its limits, for example "mem=268435456,cpu=600,result=16777216".
const childEnv = "LOOPWORK_JQRUN_CHILD"

// init turns this process into a child when a Pool started it: the same executable (the server, or a
// test binary) re-executed with childEnv set serves evaluations and exits, and never reaches main.
func init() {
	spec, ok := os.LookupEnv(childEnv)
	if !ok {
		return
	}
	if err := serve(spec); err != nil {
		fmt.Fprintln(os.Stderr, "jqrun child:", err)
		os.Exit(2)
	}
	os.Exit(0)
}

// childLimits are what a child is told at start.
type childLimits struct {
	memory, result int64
	cpu            uint64 // seconds of CPU the child may use in its life
	maxEval        uint64 // seconds the longest evaluation may take
}

func parseSpec(spec string) (childLimits, error) {
	var l childLimits
	for _, kv := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return l, fmt.Errorf("bad limit %q", kv)
		}
		switch k {
		case "mem":
			l.memory = int64(n)
		case "result":
			l.result = int64(n)
		case "cpu":
			l.cpu = n
		case "eval":
			l.maxEval = n
		}
	}
	if l.memory <= 0 || l.result <= 0 || l.cpu == 0 {
		return l, fmt.Errorf("incomplete limits %q", spec)
	}
	return l, nil
}

// serve confines the process and then answers requests on stdin until it closes (the parent is gone
// or done with it) or the CPU budget is nearly spent.
func serve(spec string) error {
	l, err := parseSpec(spec)
	if err != nil {
		return err
	}
	runtime.GOMAXPROCS(1)
	// The garbage collector works to stay under the bound, so a program is stopped by what it keeps, not by
	// garbage it has not collected yet.
	debug.SetMemoryLimit(l.memory)
	if err := confine(l); err != nil {
		return err
	}
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	cache := map[string]*gojq.Code{}
	for {
		var req request
		if err := readFrame(in, 1<<31, &req); err != nil {
			return nil // the parent closed the pipe
		}
		res := evaluate(cache, req, l.result)
		res.Retire = cpuUsed()+l.maxEval+2 >= l.cpu
		if err := writeFrame(out, res); err != nil {
			return err
		}
		if err := out.Flush(); err != nil || res.Retire {
			return err
		}
	}
}

// confine sets the child's resource limits: its address space may grow by the memory bound beyond
// what the runtime and the executable already take, its CPU time is bounded for its whole life (a
// backstop: the parent kills it at each evaluation's deadline), and it leaves no core file.
func confine(l childLimits) error {
	base, err := vmSize()
	if err != nil {
		// Without /proc (a bare chroot) the start-up size cannot be read: assume a generous one, so the
		// bound stays a bound, only a looser one.
		base = assumedBase
	}
	as := uint64(base + l.memory + arenaSlack)
	if err := unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: as, Max: as}); err != nil {
		return fmt.Errorf("RLIMIT_AS: %w", err)
	}
	if err := unix.Setrlimit(unix.RLIMIT_CPU, &unix.Rlimit{Cur: l.cpu, Max: l.cpu}); err != nil {
		return fmt.Errorf("RLIMIT_CPU: %w", err)
	}
	return unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
}

// assumedBase is the start-up address space assumed when it cannot be read; a Go process reserves
// well under this before it allocates.
const assumedBase = 2 << 30

// vmSize is the process's address space now, in bytes.
func vmSize() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmSize:")); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(string(v)), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmSize in /proc/self/status")
}

// cpuUsed is the CPU time the process has used, in whole seconds.
func cpuUsed() uint64 {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return uint64(ru.Utime.Sec + ru.Stime.Sec)
}

// maxCached bounds the compiled programs a child keeps; the cache starts over when it is full.
const maxCached = 512

// evaluate runs one request: the program's first result, null when it gives none or halts with null.
func evaluate(cache map[string]*gojq.Code, req request, maxResult int64) response {
	code, err := compiled(cache, req.Expr)
	if err != nil {
		return response{Err: err.Error()}
	}
	return first(context.Background(), code, req.Input, req.Vars, maxResult)
}

// compiled is the program compiled, from cache when it was compiled before.
func compiled(cache map[string]*gojq.Code, expr string) (*gojq.Code, error) {
	if code := cache[expr]; code != nil {
		return code, nil
	}
	code, err := dsl.CompileJQ(expr)
	if err != nil {
		return nil, err
	}
	if len(cache) >= maxCached {
		clear(cache)
	}
	cache[expr] = code
	return code, nil
}

// first runs code on the JSON input, with the variables' values of vars (a Vars object), until its first
// result, or until ctx ends (an error result).
func first(ctx context.Context, code *gojq.Code, raw, vars json.RawMessage, maxResult int64) response {
	var input any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &input); err != nil {
			return response{Err: "the input is not JSON: " + err.Error()}
		}
	}
	var values struct {
		Input any            `json:"input"`
		Tasks map[string]any `json:"tasks"`
	}
	if len(vars) > 0 {
		if err := json.Unmarshal(vars, &values); err != nil {
			return response{Err: "the variables are not JSON: " + err.Error()}
		}
	}
	if values.Tasks == nil {
		values.Tasks = map[string]any{}
	}
	// gojq wants an object as map[string]any, and json gives exactly that.
	v, ok := code.RunWithContext(ctx, input, values.Input, values.Tasks).Next()
	if !ok {
		return response{}
	}
	if err, isErr := v.(error); isErr {
		var halt *gojq.HaltError
		if errors.As(err, &halt) && halt.Value() == nil {
			return response{}
		}
		return response{Err: err.Error()}
	}
	b, err := gojq.Marshal(v)
	if err != nil {
		return response{Err: err.Error()}
	}
	if int64(len(b)) > maxResult {
		return response{TooLarge: true}
	}
	return response{Value: b}
}

// arenaSlack is address space beyond the budget for the runtime's own reservations: the Go heap reserves
// address space 64 MB at a time, with metadata and mark bits beside it, so a program whose live data stays
// well inside the budget could otherwise die of the reservation that the garbage collector was about to
// make unnecessary. The collector's soft limit (debug.SetMemoryLimit) is the budget itself.
const arenaSlack = 64 << 20
