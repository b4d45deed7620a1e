// Package deploy reads the repository's Dockerfile and compose.yaml, so that tests can check what a
// container runtime would do with them on a machine that has none: which user the image runs as, how
// its binary is built, which files it holds, and which settings compose hands the server.
package deploy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Instruction is one Dockerfile instruction: its keyword (upper case), the --flags before its
// arguments, and the arguments as written (continuation lines joined) or, in exec form, as a list.
type Instruction struct {
	Cmd   string
	Flags map[string]string
	Raw   string
	Exec  []string // the JSON array of an exec-form RUN, CMD, ENTRYPOINT or HEALTHCHECK CMD
	Line  int
}

// Stage is one FROM and the instructions up to the next.
type Stage struct {
	Name, From   string
	Instructions []Instruction
}

// Dockerfile is the parsed file: the ARGs before the first FROM, and the stages in order. The last
// stage is what `docker build` makes without --target.
type Dockerfile struct {
	GlobalArgs map[string]string
	Stages     []Stage
}

// Stage returns the stage named name.
func (d *Dockerfile) Stage(name string) (*Stage, error) {
	for i := range d.Stages {
		if d.Stages[i].Name == name {
			return &d.Stages[i], nil
		}
	}
	return nil, fmt.Errorf("Dockerfile: no stage named %q", name)
}

// All returns the stage's instructions of one kind.
func (s *Stage) All(cmd string) []Instruction {
	var out []Instruction
	for _, in := range s.Instructions {
		if in.Cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

// Last returns the stage's last instruction of one kind (the one that takes effect for USER,
// ENTRYPOINT, CMD, HEALTHCHECK, WORKDIR).
func (s *Stage) Last(cmd string) (Instruction, bool) {
	all := s.All(cmd)
	if len(all) == 0 {
		return Instruction{}, false
	}
	return all[len(all)-1], true
}

// Env returns the variables the stage's ENV lines set, in the KEY=value form.
func (s *Stage) Env() (map[string]string, error) {
	out := map[string]string{}
	for _, in := range s.All("ENV") {
		words, err := SplitWords(in.Raw)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", in.Line, err)
		}
		for _, w := range words {
			k, v, ok := strings.Cut(w, "=")
			if !ok {
				return nil, fmt.Errorf("line %d: ENV %q: only the KEY=value form is read here", in.Line, w)
			}
			out[k] = v
		}
	}
	return out, nil
}

// ParseDockerfile reads the instructions of a Dockerfile. It knows what this repository's Dockerfile
// uses: comments, parser directives, backslash continuations, --flags, and exec-form JSON arrays.
func ParseDockerfile(r io.Reader) (*Dockerfile, error) {
	d := &Dockerfile{GlobalArgs: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var pending strings.Builder
	start, n := 0, 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") || line == "" {
			continue // comments, parser directives and empty lines, also inside continued instructions
		}
		if pending.Len() == 0 {
			start = n
		}
		if cont, ok := strings.CutSuffix(line, `\`); ok {
			pending.WriteString(cont + " ")
			continue
		}
		pending.WriteString(line)
		if err := d.add(pending.String(), start); err != nil {
			return nil, err
		}
		pending.Reset()
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if pending.Len() > 0 {
		return nil, fmt.Errorf("Dockerfile line %d: the file ends inside a continued instruction", start)
	}
	if len(d.Stages) == 0 {
		return nil, fmt.Errorf("Dockerfile: no FROM")
	}
	return d, nil
}

func (d *Dockerfile) add(text string, line int) error {
	cmd, rest, _ := strings.Cut(strings.TrimSpace(text), " ")
	in := Instruction{Cmd: strings.ToUpper(cmd), Flags: map[string]string{}, Line: line}
	rest = strings.TrimSpace(rest)
	for strings.HasPrefix(rest, "--") {
		flag, after, _ := strings.Cut(rest, " ")
		k, v, _ := strings.Cut(strings.TrimPrefix(flag, "--"), "=")
		if _, dup := in.Flags[k]; dup {
			in.Flags[k] += "," + v // several --mount flags
		} else {
			in.Flags[k] = v
		}
		rest = strings.TrimSpace(after)
	}
	if in.Cmd == "HEALTHCHECK" {
		rest = strings.TrimSpace(strings.TrimPrefix(rest, "CMD"))
	}
	in.Raw = rest
	if strings.HasPrefix(rest, "[") {
		if err := json.Unmarshal([]byte(rest), &in.Exec); err != nil {
			return fmt.Errorf("Dockerfile line %d: %s: not a JSON array: %v", line, in.Cmd, err)
		}
	}
	switch in.Cmd {
	case "FROM":
		words := strings.Fields(rest)
		st := Stage{From: words[0]}
		if len(words) == 3 && strings.EqualFold(words[1], "AS") {
			st.Name = words[2]
		}
		d.Stages = append(d.Stages, st)
		return nil
	case "ARG":
		if len(d.Stages) == 0 {
			k, v, _ := strings.Cut(rest, "=")
			d.GlobalArgs[k] = v
			return nil
		}
	}
	if len(d.Stages) == 0 {
		return fmt.Errorf("Dockerfile line %d: %s before the first FROM", line, in.Cmd)
	}
	st := &d.Stages[len(d.Stages)-1]
	st.Instructions = append(st.Instructions, in)
	return nil
}

// ArgDefault is the default of the stage's ARG name ("" when it declares none).
func (s *Stage) ArgDefault(name string) string {
	for _, in := range s.All("ARG") {
		if k, v, _ := strings.Cut(in.Raw, "="); k == name {
			return v
		}
	}
	return ""
}
