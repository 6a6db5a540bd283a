package gen

import (
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/wirecheck/wirecheck/internal/jsonval"
	"pgregory.net/rapid"
)

// depthSlack is how far past Options.MaxDepth required structure may push
// before an attempt is abandoned. Minimum-depth steering normally keeps
// values within MaxDepth plus the schema's own required nesting; the slack
// only catches schemas whose depth the heuristic underestimates.
const depthSlack = 16

// generator is immutable after newGenerator, so one instance can serve
// concurrent draws.
type generator struct {
	root *jsonschema.Schema
	o    Options
	g    *graph
	// check makes the top level validate every value before returning it.
	// Tests turn it off to observe the constructive paths directly.
	check bool
}

func newGenerator(s *jsonschema.Schema, o Options) *generator {
	if s == nil {
		panic("gen: nil schema")
	}
	return &generator{root: s, o: o.withDefaults(), g: analyze(s), check: true}
}

// run is the state of building one top-level value: the attempt budget
// shared by all the nested retries.
type run struct {
	*generator
	left int
}

// Valid returns a generator of values that validate against s, with the
// default Options.
func Valid(s *jsonschema.Schema) *rapid.Generator[any] {
	return ValidWith(s, Options{})
}

// ValidWith is Valid with explicit size bounds.
func ValidWith(s *jsonschema.Schema, o Options) *rapid.Generator[any] {
	return newGenerator(s, o).valid()
}

func (g *generator) valid() *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		r := &run{generator: g, left: g.o.MaxAttempts}
		return r.top(t)
	})
}

func (r *run) top(t *rapid.T) (v any) {
	defer func() {
		if p := recover(); p != nil {
			if rj, ok := p.(rejection); ok {
				t.Skip(rj.Error())
			}
			panic(p)
		}
	}()
	if r.g.depthOf(r.root) >= inf {
		reject("schema accepts no finite value")
	}
	v = r.value(t, []*jsonschema.Schema{r.root}, 0, kAll)
	if r.check && r.root.Validate(v) != nil {
		reject("candidate failed validation")
	}
	return v
}

// draw builds a value for conj, retrying rejected attempts right here
// rather than discarding the whole top-level value. Retrying by hand instead
// of nesting rapid.Custom avoids a rapid.T per sub-value, which dominated
// the cost of generation.
func (r *run) draw(t *rapid.T, conj []*jsonschema.Schema, depth int, only kind) any {
	var last rejection
	for range localTries {
		v, rj, ok := r.attempt(t, conj, depth, only)
		if ok {
			return v
		}
		last = rj
		if r.left <= 0 {
			break
		}
	}
	panic(last)
}

func (r *run) attempt(t *rapid.T, conj []*jsonschema.Schema, depth int, only kind) (v any, rj rejection, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			var isRej bool
			if rj, isRej = p.(rejection); !isRej {
				panic(p)
			}
		}
	}()
	return r.value(t, conj, depth, only), rejection{}, true
}

// value builds a value satisfying every schema in conj at once.
func (r *run) value(t *rapid.T, conj []*jsonschema.Schema, depth int, only kind) any {
	r.left--
	if r.left < 0 {
		reject("attempt budget exhausted")
	}
	if depth > r.o.MaxDepth+depthSlack {
		reject("nesting too deep")
	}
	f := r.expand(t, conj, depth)
	v := r.build(t, f, depth, only)
	if f.unsure {
		for _, s := range conj {
			if s.Validate(v) != nil {
				reject("candidate failed validation")
			}
		}
	}
	return v
}

// flat is the conjunction of schemas that apply at one instance location
// once references, allOf, and the chosen anyOf/oneOf/if branches are
// inlined.
type flat struct {
	nodes  []*node
	seen   []*jsonschema.Schema // a handful at most; a map cost more to build
	unsure bool
}

// visit reports whether s is new to f and marks it seen.
func (f *flat) visit(s *jsonschema.Schema) bool {
	if s == nil || slices.Contains(f.seen, s) {
		return false
	}
	f.seen = append(f.seen, s)
	return true
}

func (r *run) expand(t *rapid.T, conj []*jsonschema.Schema, depth int) *flat {
	f := &flat{}
	for _, s := range conj {
		r.add(t, f, s, depth)
	}
	return f
}

func (r *run) add(t *rapid.T, f *flat, s *jsonschema.Schema, depth int) {
	if !f.visit(s) {
		return
	}
	if s.Bool != nil {
		if !*s.Bool {
			reject("false schema")
		}
		return
	}
	n := r.g.nodes[s]
	f.nodes = append(f.nodes, n)
	f.unsure = f.unsure || n.unsure
	r.add(t, f, s.Ref, depth)
	r.add(t, f, s.RecursiveRef, depth)
	if s.DynamicRef != nil {
		r.add(t, f, s.DynamicRef.Ref, depth)
	}
	for _, c := range s.AllOf {
		r.add(t, f, c, depth)
	}
	if len(s.AnyOf) > 0 {
		r.add(t, f, r.pick(t, s.AnyOf, depth, "anyOf"), depth)
	}
	if len(s.OneOf) > 0 {
		r.add(t, f, r.pick(t, s.OneOf, depth, "oneOf"), depth)
	}
	if s.If != nil && (s.Then != nil || s.Else != nil) {
		if boolGen.Draw(t, "if") {
			r.add(t, f, s.If, depth)
			r.add(t, f, s.Then, depth)
		} else {
			r.add(t, f, s.Else, depth)
		}
	}
}

// pick chooses a branch, restricted to branches whose values can still fit
// under MaxDepth when any can; that restriction is what makes recursive
// schemas such as a JSON value type terminate.
func (r *run) pick(t *rapid.T, alts []*jsonschema.Schema, depth int, label string) *jsonschema.Schema {
	budget := r.o.MaxDepth - depth
	var fit []*jsonschema.Schema
	best := inf
	for _, c := range alts {
		d := r.g.depthOf(c)
		if d <= budget {
			fit = append(fit, c)
		}
		best = min(best, d)
	}
	if len(fit) == 0 {
		if best >= inf {
			reject("no satisfiable branch")
		}
		for _, c := range alts {
			if r.g.depthOf(c) == best {
				fit = append(fit, c)
			}
		}
	}
	return fit[index(t, len(fit), label)]
}

// build makes a value from the merged keywords of f.
func (r *run) build(t *rapid.T, f *flat, depth int, only kind) any {
	if v, ok := r.fromEnum(t, f, only); ok {
		return v
	}

	k, explicit, hints := only, false, kind(0)
	for _, n := range f.nodes {
		k &= n.kinds
		explicit = explicit || n.kinds != kAll
		hints |= n.hints
	}
	if !explicit && hints&k != 0 {
		// Untyped schemas whose keywords only talk about, say, objects
		// accept anything, but a bare null exercises nothing.
		k &= hints
	}
	if depth >= r.o.MaxDepth && k&kScalar != 0 {
		k &= kScalar
	}
	var choices []kind
	for _, c := range kindOrder {
		if k&c != 0 {
			choices = append(choices, c)
		}
	}
	if len(choices) == 0 {
		reject("no JSON type satisfies every applicable schema")
	}
	switch choices[index(t, len(choices), "type")] {
	case kNull:
		return nil
	case kBool:
		return boolGen.Draw(t, "bool")
	case kInt:
		return r.number(t, f, true)
	case kFrac:
		return r.number(t, f, false)
	case kString:
		return r.str(t, f)
	case kArray:
		return r.array(t, f, depth)
	default:
		return r.object(t, f, depth)
	}
}

// fromEnum handles const and enum: the candidates are finite, so picking
// among those that satisfy the whole conjunction beats constructing.
func (r *run) fromEnum(t *rapid.T, f *flat, only kind) (any, bool) {
	var cands []any
	found := false
	for _, n := range f.nodes {
		switch {
		case n.s.Const != nil:
			cands, found = []any{*n.s.Const}, true
		case n.s.Enum != nil:
			cands, found = n.s.Enum.Values, true
		default:
			continue
		}
		break
	}
	if !found {
		return nil, false
	}
	var ok []any
	for _, c := range cands {
		if kindOf(c)&only == 0 {
			continue
		}
		good := true
		for _, n := range f.nodes {
			if !n.accepts(c) {
				good = false
				break
			}
		}
		if good {
			ok = append(ok, c)
		}
	}
	if len(ok) == 0 {
		reject("no enum/const value satisfies every applicable schema")
	}
	return jsonval.Clone(ok[index(t, len(ok), "enum")]), true
}
