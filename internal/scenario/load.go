package scenario

import (
	"encoding/base64"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/wirecheck/wirecheck/internal/spec"
)

// LoadDir reads every *.yaml scenario under dir in fsys (one scenario per
// file, subfolders included) and checks each against the protocol. prefix
// is prepended to file names in messages ("fixtures/").
func LoadDir(fsys fs.FS, dir, prefix string, p *spec.Protocol) ([]*Scenario, error) {
	var files []string
	err := fs.WalkDir(fsys, dir, func(f string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(f, ".yaml") || strings.HasSuffix(f, ".yml")) {
			files = append(files, f)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s%s: %w", prefix, dir, err)
	}
	sort.Strings(files)
	var out []*Scenario
	var errs spec.Errors
	names := map[string]string{}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		s, err := Parse(prefix+f, data, p)
		if err != nil {
			if es, ok := err.(spec.Errors); ok {
				errs = append(errs, es...)
			} else if e, ok := err.(*spec.Error); ok {
				errs = append(errs, e)
			} else {
				errs = append(errs, &spec.Error{File: prefix + f, Msg: err.Error()})
			}
			continue
		}
		if other, dup := names[s.Name]; dup {
			errs = append(errs, &spec.Error{File: prefix + f, Line: 1, Msg: fmt.Sprintf("scenario name %q is also used by %s", s.Name, other)})
		}
		names[s.Name] = prefix + f
		out = append(out, s)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// Parse reads one scenario file and checks it against the protocol.
func Parse(name string, data []byte, p *spec.Protocol) (*Scenario, error) {
	s := &Scenario{File: name, Line: 1}
	if err := spec.DecodeStrict(name, data, s); err != nil {
		return nil, err
	}
	for i, l := range spec.Lines(data, "steps") {
		if i < len(s.Steps) {
			s.Steps[i].Line = l
		}
	}
	var errs spec.Errors
	bad := func(line int, format string, args ...any) {
		errs = append(errs, &spec.Error{File: name, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(path.Base(name), path.Ext(name))
	}
	if len(s.Rules) == 0 {
		bad(1, "scenario %q declares no rules: say which rules it checks", s.Name)
	}
	declared := map[string]bool{}
	for _, r := range s.Rules {
		declared[r] = true
		if p.Rule(r) == nil {
			bad(1, "rule %s is not in the %s catalogue", r, p.ID)
		}
	}
	if len(s.Steps) == 0 {
		bad(1, "scenario %q has no steps", s.Name)
	}
	named := map[string]bool{}
	for i := range s.Steps {
		st := &s.Steps[i]
		line := st.Line
		if n := st.actions(); n != 1 {
			bad(line, "step %d has %d actions; want exactly one of send, send_line, send_raw, send_base64, expect, expect_frame, expect_silence, expect_alive, close_stdin, expect_exit, restart, sleep, disturb", i+1, n)
		}
		for _, m := range checkRefs(st.Send, named) {
			bad(line, "step %d: %s", i+1, m)
		}
		if st.As != "" {
			if st.Send == nil {
				bad(line, "step %d: 'as' names a send step only", i+1)
			}
			named[st.As] = true
		}
		if st.Optional {
			switch {
			case st.Expect == "" || st.Rule == "":
				bad(line, "step %d: 'optional' applies to an expect step with a rule", i+1)
			case len(p.Unimplemented) == 0:
				bad(line, "step %d: 'optional' needs the %s spec to say how a server answers a method it does not implement (unimplemented:)", i+1, p.ID)
			}
		}
		if st.SendBase64 != nil {
			if _, err := base64.StdEncoding.DecodeString(*st.SendBase64); err != nil {
				bad(line, "step %d: send_base64: %v", i+1, err)
			}
		}
		if st.Split != 0 && (st.Send == nil || st.Split < 0) {
			bad(line, "step %d: split is a positive byte offset on a send step", i+1)
		}
		if p.ID != "" && s.Protocol != "" && s.Protocol != p.ID {
			bad(1, "scenario is for protocol %q, not %q", s.Protocol, p.ID)
		}
		if st.Expect != "" && !named[st.Expect] {
			bad(line, "step %d: expect %q: no earlier send step has 'as: %s'", i+1, st.Expect, st.Expect)
		}
		if st.Rule != "" {
			if p.Rule(st.Rule) == nil {
				bad(line, "step %d: rule %s is not in the %s catalogue", i+1, st.Rule, p.ID)
			} else if !declared[st.Rule] {
				bad(line, "step %d: rule %s is not in the scenario's rules list", i+1, st.Rule)
			}
		}
		for _, a := range st.Also {
			if !st.ExpectFrame {
				bad(line, "step %d: 'also' applies to an expect_frame step", i+1)
			} else if p.Rule(a.Rule) == nil {
				bad(line, "step %d: also: rule %s is not in the %s catalogue", i+1, a.Rule, p.ID)
			} else if !declared[a.Rule] {
				bad(line, "step %d: also: rule %s is not in the scenario's rules list", i+1, a.Rule)
			}
		}
		if st.Kind != "" && p.Kind(st.Kind) == nil {
			bad(line, "step %d: kind %q is not defined by %s", i+1, st.Kind, p.ID)
		}
		if st.Open && st.Send == nil {
			bad(line, "step %d: 'open' applies to a send step", i+1)
		}
		if st.Cancelled && st.Expect == "" {
			bad(line, "step %d: 'cancelled' applies to an expect step", i+1)
		}
		if st.Seek && (!st.ExpectFrame || len(st.Match) == 0) {
			bad(line, "step %d: 'seek' applies to an expect_frame step with match conditions", i+1)
		}
		if st.Depends != "" && !st.ExpectFrame {
			bad(line, "step %d: 'depends' applies to an expect_frame step", i+1)
		}
		for k, re := range st.Pattern {
			if _, err := regexp.Compile(re); err != nil {
				bad(line, "step %d: pattern for %s: %v", i+1, k, err)
			}
		}
		for _, ptr := range st.pointers() {
			if !strings.HasPrefix(ptr, "/") {
				bad(line, "step %d: %q is not a JSON pointer (it must start with '/')", i+1, ptr)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return s, nil
}

func (st *Step) actions() int {
	n := 0
	for _, set := range []bool{
		st.Send != nil, st.SendLine != nil, st.SendRaw != nil, st.SendBase64 != nil, st.Expect != "", st.ExpectFrame,
		st.ExpectSilence > 0, st.ExpectAlive, st.CloseStdin, st.ExpectExit != nil, st.Restart, st.Sleep > 0, st.Drain,
		st.Disturb != "",
	} {
		if set {
			n++
		}
	}
	return n
}

func (st *Step) pointers() []string {
	var out []string
	out = append(out, sortedKeys(st.Match)...)
	out = append(out, st.Present...)
	out = append(out, st.Absent...)
	out = append(out, sortedKeys(st.Pattern)...)
	out = append(out, sortedKeys(st.Type)...)
	return out
}
