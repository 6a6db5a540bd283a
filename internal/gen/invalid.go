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
		cands := g.mutations(v)
		if len(cands) == 0 {
			t.Skip("gen: no keyword to violate")
		}
		// Start at a random candidate and take the first that really
		// invalidates, so one unlucky pick does not cost a whole value.
		start := rapid.IntRange(0, len(cands)-1).Draw(t, "mutation")
		for i := range cands {
			c := cands[(start+i)%len(cands)]
			mv := setAt(v, c.path, c.value)
			if g.root.Validate(mv) != nil {
				return Mutation{Value: mv, What: c.what}
			}
		}
		t.Skip("gen: no mutation invalidated the value")
		return Mutation{}
	})
}

type candidate struct {
	path  []string
	value any // replaces the value at path
	what  string
}

func (g *generator) mutations(v any) []candidate {
	var out []candidate
	g.walk(&out, []*jsonschema.Schema{g.root}, v, nil)
	return out
}

// applicable is expand for a known value: the anyOf/oneOf branches and the
// if/then/else side that the value actually satisfies are the ones whose
// keywords describe it.
func (g *generator) applicable(conj []*jsonschema.Schema, v any) *flat {
	f := &flat{seen: map[*jsonschema.Schema]bool{}}
	obj, _ := v.(map[string]any)
	var add func(s *jsonschema.Schema)
	add = func(s *jsonschema.Schema) {
		if s == nil || f.seen[s] || s.Bool != nil {
			return
		}
		f.seen[s] = true
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

func (g *generator) walk(out *[]candidate, conj []*jsonschema.Schema, v any, path []string) {
	f := g.applicable(conj, v)
	if len(f.nodes) == 0 {
		return
	}
	m := &mutator{out: out, path: slices.Clone(path), at: pointer(path), v: v}
	m.wrongType(f)
	m.notConstOrEnum(f)
	switch x := v.(type) {
	case map[string]any:
		m.object(f, x)
		for _, k := range sortedKeys(x) {
			g.walk(out, f.propConj(k), x[k], append(path, k))
		}
	case []any:
		m.array(f, x)
		for i, item := range x {
			g.walk(out, f.itemConj(i), item, append(path, strconv.Itoa(i)))
		}
	case string:
		m.str(f, x)
	default:
		if r, ok := ratOf(v); ok {
			m.number(f, r)
		}
	}
}

// mutator collects the candidates for one location.
type mutator struct {
	out  *[]candidate
	path []string
	at   string
	v    any
}

func (m *mutator) add(value any, format string, args ...any) {
	*m.out = append(*m.out, candidate{m.path, value, fmt.Sprintf(format, args...)})
}

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
			m.add(s.v, "wrong type at %s: %s where %s is required", m.at, s.k, allowed)
		}
	}
}

func (m *mutator) notConstOrEnum(f *flat) {
	for _, n := range f.nodes {
		if n.s.Const != nil {
			if p, ok := outside([]any{*n.s.Const}, m.v); ok {
				m.add(p, "set %s to %s instead of its const %s", m.at, render(p), render(*n.s.Const))
			}
		}
		if n.s.Enum != nil {
			if p, ok := outside(n.s.Enum.Values, m.v); ok {
				m.add(p, "set %s to %s, which is not in its enum", m.at, render(p))
			}
		}
	}
}

// outside finds a probe value equal to none of vals, preferring one of the
// same kind as cur so that the enum, not the type, is what fails.
func outside(vals []any, cur any) (any, bool) {
	probes := []any{"wirecheck-not-allowed", json.Number("-987654321"), json.Number("0.123"),
		true, false, nil, []any{}, map[string]any{}}
	slices.SortStableFunc(probes, func(a, b any) int {
		ka, kb := kindOf(a)&kindOf(cur) != 0, kindOf(b)&kindOf(cur) != 0
		switch {
		case ka && !kb:
			return -1
		case kb && !ka:
			return 1
		}
		return 0
	})
	for _, p := range probes {
		if !containsEqual(vals, p) {
			return p, true
		}
	}
	return nil, false
}

func (m *mutator) object(f *flat, x map[string]any) {
	keys := sortedKeys(x)
	dropped := map[string]bool{}
	closed := false
	for _, n := range f.nodes {
		s := n.s
		for _, name := range s.Required {
			if _, ok := x[name]; ok && !dropped[name] {
				dropped[name] = true
				m.add(without(x, name), "dropped required property %q at %s", name, m.at)
			}
		}
		for _, name := range keys {
			for _, dep := range dependents(s, name) {
				if _, ok := x[dep]; ok && !dropped[dep] {
					dropped[dep] = true
					m.add(without(x, dep), "dropped property %q at %s, which %q requires", dep, m.at, name)
				}
			}
		}
		if up := s.UnevaluatedProperties; !n.admitsExtra() || (up != nil && up.Bool != nil && !*up.Bool) {
			closed = true
		}
		if s.MinProperties != nil && *s.MinProperties > 0 && len(x) >= *s.MinProperties {
			y := without(x, keys[:len(x)-*s.MinProperties+1]...)
			m.add(y, "removed properties at %s, leaving %d, below minProperties %d", m.at, len(y), *s.MinProperties)
		}
		if s.MaxProperties != nil {
			y := clone(x).(map[string]any)
			for i := 0; len(y) <= *s.MaxProperties; i++ {
				y[fmt.Sprintf("wirecheck_extra_%d", i)] = nil
			}
			m.add(y, "added properties at %s, making %d, above maxProperties %d", m.at, len(y), *s.MaxProperties)
		}
		if pn := s.PropertyNames; pn != nil {
			for _, name := range []string{"", "wirecheck extra ~!", "0", strings.Repeat("x", 300)} {
				if _, ok := x[name]; !ok && pn.Validate(name) != nil {
					m.add(with(x, name, nil), "added property %q at %s, which propertyNames rejects", name, m.at)
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
		m.add(with(x, name, nil), "added property %q at %s, which admits no undeclared properties", name, m.at)
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
		if s.MinItems != nil && *s.MinItems > 0 && len(x) >= *s.MinItems {
			m.add(slices.Clone(x[:*s.MinItems-1]), "truncated %s to %d items, below minItems %d", m.at, *s.MinItems-1, *s.MinItems)
		}
		if s.MaxItems != nil {
			m.add(grow(x, *s.MaxItems+1), "extended %s to %d items, above maxItems %d", m.at, *s.MaxItems+1, *s.MaxItems)
		}
		if l := itemLimit(s); l >= 0 {
			m.add(grow(x, max(len(x), l)+1), "extended %s to %d items, but it admits at most %d", m.at, max(len(x), l)+1, l)
		}
		if s.UniqueItems && len(x) > 0 {
			m.add(append(slices.Clone(x), clone(x[0])), "duplicated item 0 of %s, whose items must be unique", m.at)
		}
		if s.Contains != nil {
			var y []any
			for _, item := range x {
				if s.Contains.Validate(item) != nil {
					y = append(y, item)
				}
			}
			if y == nil {
				y = []any{}
			}
			m.add(y, "removed the items of %s that satisfy contains", m.at)
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
			y = append(y, clone(x[i%len(x)]))
		}
	}
	return y
}

func (m *mutator) number(f *flat, x *big.Rat) {
	one := big.NewRat(1, 1)
	for _, n := range f.nodes {
		s := n.s
		if s.Minimum != nil {
			v := ratNumber(new(big.Rat).Sub(s.Minimum, one))
			m.add(v, "set %s to %s, below minimum %s", m.at, v, ratNumber(s.Minimum))
		}
		if s.ExclusiveMinimum != nil {
			v := ratNumber(s.ExclusiveMinimum)
			m.add(v, "set %s to %s, not above exclusiveMinimum %s", m.at, v, v)
		}
		if s.Maximum != nil {
			v := ratNumber(new(big.Rat).Add(s.Maximum, one))
			m.add(v, "set %s to %s, above maximum %s", m.at, v, ratNumber(s.Maximum))
		}
		if s.ExclusiveMaximum != nil {
			v := ratNumber(s.ExclusiveMaximum)
			m.add(v, "set %s to %s, not below exclusiveMaximum %s", m.at, v, v)
		}
		if s.MultipleOf != nil {
			half := new(big.Rat).Quo(s.MultipleOf, big.NewRat(2, 1))
			v := ratNumber(new(big.Rat).Add(x, half))
			m.add(v, "set %s to %s, not a multiple of %s", m.at, v, ratNumber(s.MultipleOf))
		}
	}
}

func (m *mutator) str(f *flat, x string) {
	n := utf8.RuneCountInString(x)
	for _, nd := range f.nodes {
		s := nd.s
		if s.MinLength != nil && *s.MinLength > 0 && n >= *s.MinLength {
			y := string([]rune(x)[:*s.MinLength-1])
			m.add(y, "shortened %s to %d characters, below minLength %d", m.at, *s.MinLength-1, *s.MinLength)
		}
		if s.MaxLength != nil {
			y := x + strings.Repeat("x", max(0, *s.MaxLength+1-n))
			m.add(y, "lengthened %s to %d characters, above maxLength %d", m.at, utf8.RuneCountInString(y), *s.MaxLength)
		}
		if s.Pattern != nil {
			for _, p := range []string{"", " ", "~", "\x00", "0", "A", "wirecheck", "-"} {
				if !s.Pattern.MatchString(p) {
					m.add(p, "set %s to %q, which does not match pattern %q", m.at, p, s.Pattern.String())
					break
				}
			}
		}
		if s.Format != nil {
			for _, p := range []string{"not a " + s.Format.Name, "%zz", "(", "", "::"} {
				if s.Format.Validate(p) != nil {
					m.add(p, "set %s to %q, which is not a valid %s", m.at, p, s.Format.Name)
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
