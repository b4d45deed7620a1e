package deploy

import (
	"fmt"
	"io"
	"sort"

	"go.yaml.in/yaml/v3"
)

// Compose is the part of a compose file the checks read.
type Compose struct {
	Services map[string]Service `yaml:"services"`
	Volumes  map[string]any     `yaml:"volumes"`
}

// Service is one service of a compose file. Environment is the map form (the one this repository
// uses), with values as written: ${…} expansions are left for Interpolate.
type Service struct {
	Image       string            `yaml:"image"`
	Build       *Build            `yaml:"build"`
	Profiles    []string          `yaml:"profiles"`
	Environment map[string]string `yaml:"environment"`
	EnvFile     any               `yaml:"env_file"`
	Ports       []string          `yaml:"ports"`
	Volumes     []string          `yaml:"volumes"`
	Command     []string          `yaml:"command"`
	DependsOn   map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
}

// Build is a service's build section.
type Build struct {
	Context string            `yaml:"context"`
	Target  string            `yaml:"target"`
	Args    map[string]string `yaml:"args"`
}

// ParseCompose reads a compose file. Only the fields above are decoded; a list-form environment fails to
// decode, and an env_file is kept so that a check can refuse settings it cannot see.
func ParseCompose(r io.Reader) (*Compose, error) {
	var c Compose
	dec := yaml.NewDecoder(r)
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("compose.yaml: %w", err)
	}
	return &c, nil
}

// ServiceNames lists the services in a stable order.
func (c *Compose) ServiceNames() []string {
	names := make([]string, 0, len(c.Services))
	for n := range c.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ResolvedEnvironment is a service's environment after compose's interpolation from lookup.
func (s Service) ResolvedEnvironment(lookup func(string) (string, bool)) (map[string]string, error) {
	out := make(map[string]string, len(s.Environment))
	for k, v := range s.Environment {
		r, err := Interpolate(v, lookup)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = r
	}
	return out, nil
}
