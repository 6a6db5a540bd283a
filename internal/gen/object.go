package gen

import (
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"
)

// objectBuilder accumulates one object; dependentRequired and draft-07
// array dependencies pull further properties in as properties are added.
type objectBuilder struct {
	r     *run
	t     *rapid.T
	f     *flat
	depth int
	obj   map[string]any
	queue []string
}

func (b *objectBuilder) want(name string) {
	b.queue = append(b.queue, name)
	for len(b.queue) > 0 {
		name := b.queue[0]
		b.queue = b.queue[1:]
		if _, ok := b.obj[name]; ok {
			continue
		}
		if !b.f.allows(name) {
			reject("property %q is required but not allowed", name)
		}
		b.obj[name] = b.r.draw(b.t, b.f.propConj(name), b.depth+1, kAll)
		for _, n := range b.f.nodes {
			b.queue = append(b.queue, n.s.DependentRequired[name]...)
			if deps, ok := n.s.Dependencies[name].([]string); ok {
				b.queue = append(b.queue, deps...)
			}
		}
	}
}

func (r *run) object(t *rapid.T, f *flat, depth int) map[string]any {
	b := &objectBuilder{r: r, t: t, f: f, depth: depth, obj: map[string]any{}}
	minP, maxP := 0, -1
	var declared []string
	for _, n := range f.nodes {
		s := n.s
		if s.MinProperties != nil {
			minP = max(minP, *s.MinProperties)
		}
		if s.MaxProperties != nil && (maxP < 0 || *s.MaxProperties < maxP) {
			maxP = *s.MaxProperties
		}
		declared = append(declared, n.props...)
	}
	for _, n := range f.nodes {
		for _, name := range n.s.Required {
			b.want(name)
		}
	}

	slices.Sort(declared)
	declared = slices.Compact(declared)
	budget := r.o.MaxDepth - depth - 1
	var skipped []string
	for _, name := range declared {
		if _, ok := b.obj[name]; ok || !f.allows(name) {
			continue
		}
		if (maxP >= 0 && len(b.obj) >= maxP) || r.depthOfConj(f.propConj(name)) > budget ||
			!boolGen.Draw(t, "include") {
			skipped = append(skipped, name)
			continue
		}
		b.want(name)
	}

	extra := 0
	if depth < r.o.MaxDepth {
		extra = intIn(t, 0, r.o.MaxExtraProperties, "extra properties")
	}
	if maxP >= 0 {
		extra = min(extra, max(0, maxP-len(b.obj)))
	}
	extra = max(extra, minP-len(b.obj))
	if extra > 0 {
		r.extras(b, extra)
	}
	for _, name := range skipped {
		if len(b.obj) >= minP {
			break
		}
		if r.depthOfConj(f.propConj(name)) < inf {
			b.want(name)
		}
	}
	if len(b.obj) < minP || (maxP >= 0 && len(b.obj) > maxP) {
		reject("object has %d properties, outside [%d, %d]", len(b.obj), minP, maxP)
	}
	return b.obj
}

// extras adds up to n properties the schemas do not name. When some schema
// closes the object (additionalProperties false), names have to come from
// its patternProperties; otherwise pattern names and free names are mixed.
func (r *run) extras(b *objectBuilder, n int) {
	t, f := b.t, b.f
	var pats []patternProp
	closed := false
	for _, nd := range f.nodes {
		if !nd.admitsExtra() {
			if closed {
				continue // the first closed schema's patterns drive; allows() checks the rest
			}
			closed = true
			pats = nd.patterns
		} else if !closed {
			pats = append(pats, nd.patterns...)
		}
	}
	if closed && len(pats) == 0 {
		return
	}
	var names []*jsonschema.Schema
	for _, nd := range f.nodes {
		if nd.s.PropertyNames != nil {
			names = append(names, nd.s.PropertyNames)
		}
	}
	added := 0
	for try := 0; added < n && try < 4*n+4; try++ {
		var name string
		switch {
		case len(pats) > 0 && (closed || boolGen.Draw(t, "pattern name")):
			p := pats[index(t, len(pats), "pattern")]
			s, ok := patternMatch(t, p.re)
			if !ok {
				continue
			}
			name = s
		case len(names) > 0:
			name = r.draw(t, names, b.depth+1, kString).(string)
		default:
			name = text(t, 1, 8, keyRunes, true)
		}
		if _, ok := b.obj[name]; ok || !f.allows(name) {
			continue
		}
		b.want(name)
		added++
	}
}

// patternMatch tries once to produce a string matching re.
func patternMatch(t *rapid.T, re jsonschema.Regexp) (string, bool) {
	syn, err := parsePattern(re.String())
	if err != nil {
		return "", false
	}
	var sb strings.Builder
	walkRegexp(t, &sb, syn, 0)
	s := sb.String()
	return s, re.MatchString(s)
}

// allows reports whether property name may appear at all.
func (f *flat) allows(name string) bool {
	for _, n := range f.nodes {
		if !n.admitsExtra() && !n.declares(name) {
			return false
		}
		if pn := n.s.PropertyNames; pn != nil && pn.Validate(name) != nil {
			return false
		}
		if up := n.s.UnevaluatedProperties; up != nil && up.Bool != nil && !*up.Bool && !evaluated(f, name) {
			return false
		}
	}
	return true
}

// evaluated approximates unevaluatedProperties bookkeeping: a property is
// evaluated when some schema at this location names it or has
// additionalProperties.
func evaluated(f *flat, name string) bool {
	for _, n := range f.nodes {
		if n.declares(name) || n.s.AdditionalProperties != nil {
			return true
		}
	}
	return false
}

// propConj is every schema that applies to the value of property name.
func (f *flat) propConj(name string) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	for _, n := range f.nodes {
		out = appendNew(out, propSchemas(n, name)...)
	}
	if !evaluated(f, name) {
		for _, n := range f.nodes {
			if n.s.UnevaluatedProperties != nil {
				out = appendNew(out, n.s.UnevaluatedProperties)
			}
		}
	}
	return out
}
