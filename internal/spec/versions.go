package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wirecheck/wirecheck/internal/jsonval"
	"github.com/wirecheck/wirecheck/internal/revtable"
)

// Versions describes the revisions of a protocol whose message shapes
// differ by revision. A run picks one with the --param named Param (the
// CLI offers --revision for it, and --param PARAM=ID), Default otherwise.
//
// Schema references in kinds and frame rules are templates: "{version}"
// stands for the revision's id and "{NAME}" for the revision's var NAME,
// so one kind serves every revision:
//
//	versions:
//	  param: proto-version
//	  default: "2025-06-18"
//	  list:
//	    - {id: "2024-11-05", vars: {defs: "2024-11-05/schema.json#/definitions"}}
//	    - {id: "2025-11-25", vars: {defs: "2025-11-25/schema.json#/$defs"}}
//	kinds:
//	  - {name: initialize result, schema: "{defs}/InitializeResult", at: /result, …}
type Versions struct {
	Param   string     `yaml:"param"`
	Default string     `yaml:"default"`
	List    []*Version `yaml:"list"`
	// table is the revision table the list's features: make.
	table *revtable.Table
}

// Version is one revision and the values of its template vars.
type Version struct {
	ID   string            `yaml:"id"`
	Vars map[string]string `yaml:"vars"`
	// Probe replaces the protocol's probe in this revision (a revision
	// that dropped the usual ping asks something else).
	Probe map[string]any `yaml:"probe"`
	// Transports are the protocol's transports this revision defines
	// (empty: every one). A rule of some transports is no rule of a
	// revision that lacks the one a run speaks (see Protocol.InRevision):
	// an early revision may predate a transport.
	Transports []string `yaml:"transports"`
	// Doc names the revision's document as rules name theirs (a rule's
	// doc), so a rule quoted from a later revision cites this one's page
	// in its runs (Protocol.Citation).
	Doc string `yaml:"doc"`
	// Features are what the revision has (internal/revtable): the whole set,
	// or +added/-removed against the previous revision's.
	Features revtable.FeatureList `yaml:"features"`
}

// Has reports whether the revision defines a transport.
func (v *Version) Has(transport string) bool {
	return len(v.Transports) == 0 || slices.Contains(v.Transports, transport)
}

// IDs lists the revisions in the order of the spec.
func (v *Versions) IDs() []string {
	out := make([]string, 0, len(v.List))
	for _, x := range v.List {
		out = append(out, x.ID)
	}
	return out
}

func (v *Versions) find(id string) *Version {
	for _, x := range v.List {
		if x.ID == id {
			return x
		}
	}
	return nil
}

// Expand replaces {version} and the revision's vars in a schema reference.
func (v *Version) Expand(ref string) string {
	if !strings.Contains(ref, "{") {
		return ref
	}
	ref = strings.ReplaceAll(ref, "{version}", v.ID)
	for k, val := range v.Vars {
		ref = strings.ReplaceAll(ref, "{"+k+"}", val)
	}
	return ref
}

// ForVersion returns the protocol resolved for one revision: kinds
// restricted to other revisions dropped, every schema reference expanded,
// and the fuzz model that of the revision (its per_version setup and
// params, templates expanded in their strings and in the tool requests'). A protocol without Versions is returned as it is (any id
// accepted). The empty id means the default revision.
func (p *Protocol) ForVersion(id string) (*Protocol, error) {
	if p.Versions == nil {
		return p, nil
	}
	if id == "" {
		id = p.Versions.Default
	}
	if id == p.Version {
		return p, nil
	}
	v := p.Versions.find(id)
	if v == nil {
		return nil, fmt.Errorf("protocol %s has no version %q (known: %s)", p.ID, id, strings.Join(p.Versions.IDs(), ", "))
	}
	tmpl := p
	if p.template != nil {
		tmpl = p.template
	}
	q := *tmpl
	q.template = tmpl
	q.Version = id
	q.Kinds = nil
	q.kinds = map[string]*Kind{}
	for _, k := range tmpl.Kinds {
		if len(k.Versions) > 0 && !slices.Contains(k.Versions, id) {
			continue
		}
		kk := *k
		kk.Schema = v.Expand(k.Schema)
		q.Kinds = append(q.Kinds, &kk)
		if q.kinds[kk.Name] == nil {
			q.kinds[kk.Name] = &kk
		}
	}
	if tmpl.Fuzz != nil {
		q.Fuzz = tmpl.Fuzz.forVersion(v)
	}
	probe := tmpl.Probe
	if v.Probe != nil {
		probe = v.Probe
	}
	q.Probe, _ = expandValue(probe, v).(map[string]any)
	q.Rules = make([]*Rule, 0, len(tmpl.Rules))
	for _, r := range tmpl.Rules {
		rr := r
		if r.Frames != nil {
			c := *r
			f := *r.Frames
			f.Schema = v.Expand(f.Schema)
			c.Frames = &f
			rr = &c
		}
		q.Rules = append(q.Rules, rr)
	}
	// The transport is the receiver's: a protocol resolved for HTTP stays
	// so in another revision (a scenario of 2026-07-28 asks the legacy one).
	q.Transport = p.Transport
	q.index()
	return &q, nil
}

// SchemaRefs lists every schema reference the protocol's kinds and frame
// rules use, as resolved, for load-time checks.
func (p *Protocol) SchemaRefs() []string {
	var out []string
	for _, k := range p.Kinds {
		out = append(out, k.Schema)
	}
	for _, r := range p.Rules {
		if r.Frames != nil {
			out = append(out, r.Frames.Schema)
		}
	}
	if p.Fuzz != nil && p.Fuzz.Request != "" {
		out = append(out, p.Fuzz.Request)
	}
	if p.Fuzz != nil {
		for _, r := range p.Fuzz.Requests {
			out = append(out, r.Schema)
		}
		for _, fr := range p.Fuzz.Frames {
			if fr.Result != "" {
				out = append(out, fr.Result)
			}
		}
	}
	return out
}

// forVersion is the fuzz model of one revision: its per_version setup and
// params in place of the common ones, and every template expanded.
func (f *Fuzz) forVersion(v *Version) *Fuzz {
	out := *f
	out.Request = v.Expand(f.Request)
	setup, params, follow := f.Setup, f.Params, f.Follow
	requests := f.Requests
	if o := f.PerVersion[v.ID]; o != nil {
		requests = append(slices.Clip(requests), o.Requests...)
		if o.Setup != nil {
			setup = o.Setup
		}
		if o.Params != nil {
			params = o.Params
		}
		if o.Follow != nil {
			follow = o.Follow
		}
	}
	out.Setup = nil
	for _, st := range setup {
		out.Setup = append(out.Setup, expandValue(st, v).(map[string]any))
	}
	out.Params, _ = expandValue(params, v).(map[string]any)
	if f.Tools != nil {
		t := *f.Tools
		t.List, _ = expandValue(f.Tools.List, v).(map[string]any)
		t.Call, _ = expandValue(f.Tools.Call, v).(map[string]any)
		out.Tools = &t
	}
	out.Requests = nil
	for _, r := range requests {
		out.Requests = append(out.Requests, &FuzzRequest{Schema: v.Expand(r.Schema), When: r.When})
	}
	out.Frames = nil
	for _, fr := range f.Frames {
		c := *fr
		c.Frame, _ = expandValue(fr.Frame, v).(map[string]any)
		c.Result = v.Expand(fr.Result)
		out.Frames = append(out.Frames, &c)
	}
	out.Follow = nil
	for _, fl := range follow {
		c := *fl
		c.Request, _ = expandValue(fl.Request, v).(map[string]any)
		c.Undo, _ = expandValue(fl.Undo, v).(map[string]any)
		if fl.Open != nil {
			o := *fl.Open
			o.Cancel, _ = expandValue(fl.Open.Cancel, v).(map[string]any)
			c.Open = &o
		}
		out.Follow = append(out.Follow, &c)
	}
	if f.Sources != nil {
		out.Sources = map[string]*FuzzSource{}
		for name, src := range f.Sources {
			c := *src
			c.List, _ = expandValue(src.List, v).(map[string]any)
			out.Sources[name] = &c
		}
	}
	return &out
}

// expandValue deep-copies a value of the spec, expanding the revision's
// templates in every string.
func expandValue(x any, v *Version) any {
	return jsonval.Map(x, func(x any) any {
		if t, ok := x.(string); ok {
			return v.Expand(t)
		}
		return x
	})
}
