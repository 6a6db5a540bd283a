// Package protocols is the registry of the protocols wirecheck knows: for
// each, the spec, its compiled schemas, its scenarios (fixture files and Go
// scenarios) and its reference server.
package protocols

import (
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/wirecheck/wirecheck/fixtures"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/verdict"
	"github.com/wirecheck/wirecheck/schemas"
	"github.com/wirecheck/wirecheck/specs"
)

// ServeOptions is what `wirecheck serve` passes to a reference server.
type ServeOptions = refserver.Options

// Bundle is everything wirecheck has for one protocol.
type Bundle struct {
	Protocol  *spec.Protocol
	Schemas   *schema.Registry
	Scenarios []*scenario.Scenario
	// Serve runs the reference server and returns its exit code.
	Serve func(ServeOptions) int
	// Handler answers requests the server sends (nil when it sends none).
	Handler peer.Handler
	// Judge makes the protocol's frame judge of one server process (nil
	// when it has none); a profile has its base's.
	Judge peer.NewJudge
	// steps makes the handler of step scenarios (Stepped), nil for most.
	steps func(*spec.Protocol) peer.Handler
	// checkParams refuses --param settings the suite cannot use.
	checkParams func(map[string]string) error

	// base is the bundle of the protocol a profile extends (nil for a
	// protocol of its own).
	base *Bundle
}

// StepHandler is the handler of scenarios made of steps (fuzz's
// sequences, replay's files) under p, the run's revision of the
// bundle's protocol: the module's step handler where it has one
// (Stepped), else Handler.
func (b *Bundle) StepHandler(p *spec.Protocol) peer.Handler {
	if b.steps != nil {
		if h := b.steps(p); h != nil {
			return h
		}
	}
	return b.Handler
}

// Lookup returns the module of a protocol.
func Lookup(id string) (Module, error) {
	for _, m := range modules {
		if m.ID() == id {
			return m, nil
		}
	}
	for _, r := range roles {
		if r.module.ID() == id {
			return r.module, nil
		}
	}
	return nil, fmt.Errorf("unknown protocol %q (known: %s)", id, strings.Join(IDs(), ", "))
}

// IDs lists the protocols, sorted.
func IDs() []string {
	out := make([]string, 0, len(modules))
	for _, m := range modules {
		out = append(out, m.ID())
	}
	sort.Strings(out)
	return out
}

var (
	mu    sync.Mutex
	cache = map[string]*Bundle{}
)

// Load loads and checks a protocol's spec, schemas and fixtures. Errors name
// the file and line at fault. Its schemas compile as they are first used:
// that every one of them compiles is proven by the tests (Verify), not at
// every start.
func Load(id string) (*Bundle, error) {
	mu.Lock()
	defer mu.Unlock()
	if b := cache[id]; b != nil {
		return b, nil
	}
	b, err := load(id, specs.FS, schemas.FS, fixtures.FS, map[string]bool{}, false)
	if err == nil {
		cache[id] = b
	}
	return b, err
}

// Verify is Load compiling every schema file and every schema reference
// of every revision: what Load leaves to first use.
func Verify(id string) (*Bundle, error) {
	return LoadFrom(id, specs.FS, schemas.FS, fixtures.FS)
}

// LoadSpec loads only a protocol's spec, for `wirecheck serve`: it needs
// the faults but neither the schemas nor the scenarios, and it starts once
// per fuzz sequence, so compiling MCP's schemas there would dominate the
// fuzzer's time.
func LoadSpec(id string) (*spec.Protocol, error) {
	if _, err := Lookup(id); err != nil {
		return nil, err
	}
	return spec.Load(specs.FS, id+".yaml", schemas.FS, verdict.Checks, LoadSpec)
}

// LoadFrom is Verify on other file systems, for tests of broken specs,
// schemas and fixtures.
func LoadFrom(id string, specFS, schemaFS, fixtureFS fs.FS) (*Bundle, error) {
	mu.Lock()
	defer mu.Unlock()
	return load(id, specFS, schemaFS, fixtureFS, map[string]bool{}, true)
}

func load(id string, specFS, schemaFS, fixtureFS fs.FS, loading map[string]bool, strict bool) (*Bundle, error) {
	m, err := Lookup(id)
	if err != nil {
		return nil, err
	}
	if loading[id] {
		return nil, fmt.Errorf("protocol %q is its own base", id)
	}
	loading[id] = true
	// A profile's bundle (spec `base:`) is its base's bundle with the
	// profile's parts on top: the base's scenarios run first, the
	// profile's schemas shadow the base's of the same name.
	var baseBundle *Bundle
	base := func(b string) (*spec.Protocol, error) {
		bb, err := load(b, specFS, schemaFS, fixtureFS, loading, strict)
		if err != nil {
			return nil, err
		}
		baseBundle = bb
		return bb.Protocol, nil
	}
	p, err := spec.Load(specFS, id+".yaml", schemaFS, verdict.Checks, base)
	if err != nil {
		return nil, err
	}
	open := schema.Open
	if strict {
		open = schema.Compile
	}
	dirs := []string{id}
	if p.Schemas != "" {
		dirs = []string{p.Schemas}
	}
	for bb := baseBundle; bb != nil; bb = bb.base {
		dirs = append(dirs, bb.Protocol.ID)
	}
	reg, err := open(schemaFS, dirs...)
	if err != nil {
		return nil, err
	}
	var scs []*scenario.Scenario
	handler := m.Handler()
	var judge peer.NewJudge
	if j, ok := m.(Judged); ok {
		judge = j.Judge()
	}
	if baseBundle != nil {
		scs = append(scs, baseBundle.Scenarios...)
		if handler == nil {
			handler = baseBundle.Handler
		}
		if judge == nil {
			judge = baseBundle.Judge
		}
	}
	if _, err := fs.Stat(fixtureFS, id); err == nil {
		own, err := scenario.LoadDir(fixtureFS, id, "fixtures/", p)
		if err != nil {
			return nil, err
		}
		scs = append(scs, own...)
	}
	scs = append(scs, m.Scenarios()...)
	b := &Bundle{Protocol: p, Schemas: reg, Scenarios: scs, Serve: m.Serve, Handler: handler, Judge: judge, base: baseBundle}
	if st, ok := m.(Stepped); ok {
		b.steps = st.StepHandler
	}
	if pc, ok := m.(ParamChecker); ok {
		b.checkParams = pc.CheckParams
	}
	if !strict {
		return b, nil
	}
	// Every schema reference must compile, for every version of a
	// versioned protocol.
	vs := []string{""}
	if p.Versions != nil {
		vs = p.Versions.IDs()
	}
	for _, v := range vs {
		pv, err := p.ForVersion(v)
		if err != nil {
			return nil, err
		}
		for _, ref := range pv.SchemaRefs() {
			if prob := reg.Check(ref); prob != "" {
				return nil, fmt.Errorf("%s: %s", p.File, prob)
			}
		}
	}
	return b, nil
}
