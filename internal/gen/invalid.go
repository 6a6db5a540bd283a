package gen

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/wirecheck/wirecheck/internal/jsonval"
	"pgregory.net/rapid"
)

// Mutation is a value that fails validation against the schema it was
// generated for, and a sentence naming the single change that broke it,
// such as `dropped required property "name" at /params`.
type Mutation struct {
	Value any
	What  string
}

// Invalid returns a generator of schema-level invalid values: a valid value
// with one keyword violated at one location (a required property dropped,
// a value of the wrong type, outside its enum, out of range, too long or
// short, an unexpected property where additionalProperties is false, and
// so on, at the root or any nested location). Every Mutation.Value fails
// s.Validate; mutations that happen to stay valid (say, because another
// anyOf branch accepts them) are discarded, never returned.
func Invalid(s *jsonschema.Schema) *rapid.Generator[Mutation] {
	return InvalidWith(s, Options{})
}

// InvalidWith is Invalid with explicit size bounds for the underlying valid
// values.
func InvalidWith(s *jsonschema.Schema, o Options) *rapid.Generator[Mutation] {
	g := newGenerator(s, o)
	return rapid.Custom(func(t *rapid.T) Mutation {
		r := &run{generator: g, left: g.o.MaxAttempts}
		v := rapid.Custom(r.top).Draw(t, "valid")
		// Pick a location by a random walk from the root rather than by
		// enumerating every location: working out which schemas describe a
		// location means validating against each anyOf branch, which is
		// too costly to do for a whole large value per draw.
		for range mutationWalks {
			st, ok := g.descend(t, v)
			if !ok {
				break
			}
			cands := st.candidates()
			if len(cands) == 0 {
				continue
			}
			// Take the first candidate from a random start that really
			// invalidates: one unlucky pick (say, a wrong type that
			// another anyOf branch accepts) should not cost the value.
			first := index(t, len(cands), "mutation")
			for j := range cands {
				val, what := cands[(first+j)%len(cands)]()
				mv := setAt(v, st.path, val)
				if g.root.Validate(mv) != nil {
					return Mutation{Value: mv, What: what}
				}
			}
		}
		t.Skip("gen: no mutation invalidated the value")
		return Mutation{}
	})
}

// mutationWalks is how many locations are tried per valid value.
const mutationWalks = 8

// descend walks from the root towards a random location, stopping at each
// level with probability about one in three, so shallow and deep locations
// both get mutated. ok is false when the value has no described location.
func (g *generator) descend(t *rapid.T, v any) (site, bool) {
	conj := []*jsonschema.Schema{g.root}
	var path []string
	var last site
	found := false
	for {
		f := g.applicable(conj, v)
		if len(f.nodes) == 0 {
			return last, found
		}
		last, found = site{slices.Clone(path), f, v}, true
		var keys []string
		switch x := v.(type) {
		case map[string]any:
			keys = sortedKeys(x)
		case []any:
			for i := range x {
				keys = append(keys, strconv.Itoa(i))
			}
		}
		if len(keys) == 0 || index(t, 3, "stop") == 0 {
			return last, true
		}
		k := keys[index(t, len(keys), "child")]
		switch x := v.(type) {
		case map[string]any:
			conj, v = f.propConj(k), x[k]
		case []any:
			i, _ := strconv.Atoi(k)
			conj, v = f.itemConj(i), x[i]
		}
		path = append(path, k)
	}
}

// site is one location of a valid value with the schemas that describe it.
type site struct {
	path []string
	f    *flat
	v    any
}

// candidate builds one mutation's replacement value and description; both
// are deferred because only the first mutation that invalidates is used.
type candidate func() (value any, what string)

// applicable is expand for a known value: the anyOf/oneOf branches and the
// if/then/else side that the value actually satisfies are the ones whose
// keywords describe it.
func (g *generator) applicable(conj []*jsonschema.Schema, v any) *flat {
	f := &flat{}
	obj, _ := v.(map[string]any)
	var add func(s *jsonschema.Schema)
	add = func(s *jsonschema.Schema) {
		if s == nil || s.Bool != nil || !f.visit(s) {
			return
		}
		f.nodes = append(f.nodes, g.g.nodes[s])
		add(s.Ref)
		add(s.RecursiveRef)
		if s.DynamicRef != nil {
			add(s.DynamicRef.Ref)
		}
		for _, c := range s.AllOf {
			add(c)
		}
		for _, c := range slices.Concat(s.AnyOf, s.OneOf) {
			if c.Validate(v) == nil {
				add(c)
			}
		}
		if s.If != nil {
			if s.If.Validate(v) == nil {
				add(s.If)
				add(s.Then)
			} else {
				add(s.Else)
			}
		}
		for _, name := range sortedKeys(s.DependentSchemas) {
			if _, ok := obj[name]; ok {
				add(s.DependentSchemas[name])
			}
		}
	}
	for _, s := range conj {
		add(s)
	}
	return f
}

func (st site) candidates() []candidate {
	var out []candidate
	m := &mutator{out: &out, path: st.path, v: st.v}
	m.wrongType(st.f)
	m.notConstOrEnum(st.f)
	switch x := st.v.(type) {
	case map[string]any:
		m.object(st.f, x)
	case []any:
		m.array(st.f, x)
	case string:
		m.str(st.f, x)
	default:
		if r, ok := ratOf(x); ok {
			m.number(st.f, r)
		}
	}
	return out
}

// mutator collects the candidates for one location.
type mutator struct {
	out  *[]candidate
	path []string
	v    any
}

// add registers a candidate whose replacement is val() and whose
// description is format applied to the location and args.
func (m *mutator) add(val func() any, format string, args ...any) {
	path := m.path
	*m.out = append(*m.out, func() (any, string) {
		return val(), fmt.Sprintf(format, append([]any{pointer(path)}, args...)...)
	})
}

// just serves a fixed replacement, copied so that a caller mutating one
// Mutation.Value cannot corrupt the next.
func just(v any) func() any { return func() any { return jsonval.Clone(v) } }

var typeSamples = []struct {
	k kind
	v any
}{
	{kNull, nil},
	{kBool, true},
	{kInt, json.Number("7")},
	{kFrac, json.Number("0.5")},
	{kString, "wirecheck"},
	{kArray, []any{}},
	{kObject, map[string]any{}},
}

func (m *mutator) wrongType(f *flat) {
	allowed := kAll
	for _, n := range f.nodes {
		allowed &= n.kinds
	}
	if allowed == kAll {
		return
	}
	for _, s := range typeSamples {
		if allowed&s.k == 0 {
			m.add(just(s.v), "wrong type at %s: %v where %v is required", s.k, allowed)
		}
	}
}

func (m *mutator) notConstOrEnum(f *flat) {
	for _, n := range f.nodes {
		if c := n.s.Const; c != nil {
			if p, ok := outside([]any{*c}, m.v); ok {
				m.add(just(p), "set %s to %s instead of its const %s", renderer{p}, renderer{*c})
			}
		}
		if n.s.Enum != nil {
			if p, ok := outside(n.s.Enum.Values, m.v); ok {
				m.add(just(p), "set %s to %s, which is not in its enum", renderer{p})
			}
		}
	}
}

// outside finds a probe value equal to none of vals, preferring one of the
// same kind as cur so that the enum, not the type, is what fails.
func outside(vals []any, cur any) (any, bool) {
	var fallback any
	found := false
	for _, p := range enumProbes {
		if containsEqual(vals, p) {
			continue
		}
		if kindOf(p)&kindOf(cur) != 0 {
			return p, true
		}
		if !found {
			fallback, found = p, true
		}
	}
	return fallback, found
}

var enumProbes = []any{"wirecheck-not-allowed", json.Number("-987654321"), json.Number("0.123"),
	true, false, nil, []any{}, map[string]any{}}

func (m *mutator) object(f *flat, x map[string]any) {
	dropped := map[string]bool{}
	closed := false
	for _, n := range f.nodes {
		s := n.s
		for _, name := range s.Required {
			if _, ok := x[name]; ok && !dropped[name] {
				dropped[name] = true
				m.add(func() any { return without(x, name) }, "dropped required property %[2]q at %[1]s", name)
			}
		}
		for name := range x {
			for _, dep := range dependents(s, name) {
				if _, ok := x[dep]; ok && !dropped[dep] {
					dropped[dep] = true
					m.add(func() any { return without(x, dep) }, "dropped property %[2]q at %[1]s, which %[3]q requires", dep, name)
				}
			}
		}
		if up := s.UnevaluatedProperties; !n.admitsExtra() || (up != nil && up.Bool != nil && !*up.Bool) {
			closed = true
		}
		if mp := s.MinProperties; mp != nil && *mp > 0 && len(x) >= *mp {
			m.add(func() any { return without(x, sortedKeys(x)[:len(x)-*mp+1]...) },
				"removed properties at %s, leaving %d, below minProperties %d", *mp-1, *mp)
		}
		if mp := s.MaxProperties; mp != nil {
			m.add(func() any {
				y := without(x)
				for i := 0; len(y) <= *mp; i++ {
					y[fmt.Sprintf("wirecheck_extra_%d", i)] = nil
				}
				return y
			}, "added properties at %s, making %d, above maxProperties %d", max(len(x), *mp+1), *mp)
		}
		if pn := s.PropertyNames; pn != nil {
			for _, name := range []string{"", "wirecheck extra ~!", "0", strings.Repeat("x", 300)} {
				if _, ok := x[name]; !ok && pn.Validate(name) != nil {
					m.add(func() any { return with(x, name, nil) }, "added property %[2]q at %[1]s, which propertyNames rejects", name)
					break
				}
			}
		}
	}
	if closed {
		name := "wirecheck_extra"
		for i := 0; f.declares(name) || has(x, name); i++ {
			name = fmt.Sprintf("wirecheck_extra_%d", i)
		}
		m.add(func() any { return with(x, name, nil) }, "added property %[2]q at %[1]s, which admits no undeclared properties", name)
	}
}

func (f *flat) declares(name string) bool {
	for _, n := range f.nodes {
		if n.declares(name) {
			return true
		}
	}
	return false
}

func dependents(s *jsonschema.Schema, name string) []string {
	deps := s.DependentRequired[name]
	if d, ok := s.Dependencies[name].([]string); ok {
		deps = append(slices.Clone(deps), d...)
	}
	return deps
}

func (m *mutator) array(f *flat, x []any) {
	for _, n := range f.nodes {
		s := n.s
		if mi := s.MinItems; mi != nil && *mi > 0 && len(x) >= *mi {
			m.add(func() any { return slices.Clone(x[:*mi-1]) }, "truncated %s to %d items, below minItems %d", *mi-1, *mi)
		}
		if mi := s.MaxItems; mi != nil {
			m.add(func() any { return grow(x, *mi+1) }, "extended %s to %d items, above maxItems %d", *mi+1, *mi)
		}
		if l := itemLimit(s); l >= 0 {
			m.add(func() any { return grow(x, max(len(x), l)+1) }, "extended %s to %d items, but it admits at most %d", max(len(x), l)+1, l)
		}
		if s.UniqueItems && len(x) > 0 {
			m.add(func() any { return append(slices.Clone(x), jsonval.Clone(x[0])) }, "duplicated item 0 of %s, whose items must be unique")
		}
		if c := s.Contains; c != nil {
			m.add(func() any {
				y := []any{}
				for _, item := range x {
					if c.Validate(item) != nil {
						y = append(y, item)
					}
				}
				return y
			}, "removed the items of %s that satisfy contains")
		}
	}
}

// grow pads x to n items by repeating its items (nulls when it is empty),
// so that the length is the only new defect.
func grow(x []any, n int) []any {
	y := slices.Clone(x)
	for i := 0; len(y) < n; i++ {
		if len(x) == 0 {
			y = append(y, nil)
		} else {
			y = append(y, jsonval.Clone(x[i%len(x)]))
		}
	}
	return y
}

func (m *mutator) number(f *flat, x *big.Rat) {
	one := big.NewRat(1, 1)
	for _, n := range f.nodes {
		s := n.s
		if b := s.Minimum; b != nil {
			v := ratNumber(new(big.Rat).Sub(b, one))
			m.add(just(v), "set %s to %s, below minimum %s", v, ratNumber(b))
		}
		if b := s.ExclusiveMinimum; b != nil {
			v := ratNumber(b)
			m.add(just(v), "set %s to %s, not above exclusiveMinimum %[2]s", v)
		}
		if b := s.Maximum; b != nil {
			v := ratNumber(new(big.Rat).Add(b, one))
			m.add(just(v), "set %s to %s, above maximum %s", v, ratNumber(b))
		}
		if b := s.ExclusiveMaximum; b != nil {
			v := ratNumber(b)
			m.add(just(v), "set %s to %s, not below exclusiveMaximum %[2]s", v)
		}
		if d := s.MultipleOf; d != nil {
			v := ratNumber(new(big.Rat).Add(x, new(big.Rat).Quo(d, big.NewRat(2, 1))))
			m.add(just(v), "set %s to %s, not a multiple of %s", v, ratNumber(d))
		}
	}
}

func (m *mutator) str(f *flat, x string) {
	n := utf8.RuneCountInString(x)
	for _, nd := range f.nodes {
		s := nd.s
		if l := s.MinLength; l != nil && *l > 0 && n >= *l {
			m.add(func() any { return string([]rune(x)[:*l-1]) }, "shortened %s to %d characters, below minLength %d", *l-1, *l)
		}
		if l := s.MaxLength; l != nil {
			m.add(func() any { return x + strings.Repeat("x", max(0, *l+1-n)) },
				"lengthened %s to %d characters, above maxLength %d", max(n, *l+1), *l)
		}
		if p := s.Pattern; p != nil {
			for _, probe := range []string{"", " ", "~", "\x00", "0", "A", "wirecheck", "-"} {
				if !p.MatchString(probe) {
					m.add(just(probe), "set %s to %q, which does not match pattern %q", probe, p.String())
					break
				}
			}
		}
		if fm := s.Format; fm != nil {
			for _, probe := range []string{"not a " + fm.Name, "%zz", "(", "", "::"} {
				if fm.Validate(probe) != nil {
					m.add(just(probe), "set %s to %q, which is not a valid %s", probe, fm.Name)
					break
				}
			}
		}
	}
}

// setAt returns root with the value at path replaced, copying only the
// containers on the path so the original stays intact.
func setAt(root any, path []string, val any) any {
	if len(path) == 0 {
		return val
	}
	switch x := root.(type) {
	case map[string]any:
		y := make(map[string]any, len(x))
		for k, v := range x {
			y[k] = v
		}
		y[path[0]] = setAt(x[path[0]], path[1:], val)
		return y
	case []any:
		i, err := strconv.Atoi(path[0])
		if err != nil || i < 0 || i >= len(x) {
			return root
		}
		y := slices.Clone(x)
		y[i] = setAt(x[i], path[1:], val)
		return y
	}
	return root
}

func without(x map[string]any, names ...string) map[string]any {
	y := make(map[string]any, len(x))
	for k, v := range x {
		y[k] = v
	}
	for _, n := range names {
		delete(y, n)
	}
	return y
}

func with(x map[string]any, name string, v any) map[string]any {
	y := without(x)
	y[name] = v
	return y
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// renderer formats a value for a message only when the message is built.
type renderer struct{ v any }

func (r renderer) String() string { return render(r.v) }

// render shows a value in a message, shortened so that a large const does
// not drown the sentence.
func render(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

func has(x map[string]any, name string) bool {
	_, ok := x[name]
	return ok
}
