package scenario

import (
	"fmt"
	"os"
	"strings"

	"github.com/wirecheck/wirecheck/internal/spec"
)

// Saved is a scenario file as replay first reads it: the protocol and the
// settings (a revision) it was saved under, before the protocol to parse
// the scenario by is known.
type Saved struct {
	File     string            `yaml:"-"`
	Data     []byte            `yaml:"-"`
	Protocol string            `yaml:"protocol"`
	Params   map[string]string `yaml:"params"`
	// The rest of the file is the scenario's, read by Parse.
	Rest map[string]any `yaml:",inline"`
}

// ReadSaved reads the files. A file that is no YAML at all says so with
// its line before anything is asked of what it holds.
func ReadSaved(files []string) ([]*Saved, error) {
	out := make([]*Saved, len(files))
	for i, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		out[i] = &Saved{File: file, Data: data}
		if err := spec.DecodeStrict(file, data, out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Settings merges the params the files carry with override (the flags'),
// which wins. from says where each came from: a file, or "" for override.
// Files that disagree on a setting override leaves open are refused: they
// are replayed apart.
func Settings(saved []*Saved, override map[string]string) (params, from map[string]string, err error) {
	params, from = map[string]string{}, map[string]string{}
	for _, s := range saved {
		for k, v := range s.Params {
			if _, forced := override[k]; forced {
				continue
			}
			if prev, seen := params[k]; seen && prev != v {
				return nil, nil, fmt.Errorf("%s has params %s=%s, %s has %s=%s: replay them apart, or give --param %s=V for both",
					from[k], k, prev, s.File, k, v, k)
			}
			params[k], from[k] = v, s.File
		}
	}
	for k, v := range override {
		params[k], from[k] = v, ""
	}
	return params, from, nil
}

// Select returns the scenarios globs (as --scenario takes them) select;
// none selected is an error that lists the names there are.
func Select(all []*Scenario, globs []string) ([]*Scenario, error) {
	if len(globs) == 0 {
		return all, nil
	}
	var names []string
	var out []*Scenario
	for _, s := range all {
		if spec.Selects(globs, s.Name) {
			out = append(out, s)
		}
		names = append(names, s.Name)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--scenario %s matches no scenario (there are: %s)", strings.Join(globs, ", "), strings.Join(names, ", "))
	}
	return out, nil
}
