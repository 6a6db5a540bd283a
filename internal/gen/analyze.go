package gen

import (
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// inf is the minimum depth of a schema no finite value satisfies.
const inf = 1 << 20

// node is the per-schema data the generators need repeatedly, computed once
// so that drawing never iterates a Go map (whose order would make values
// depend on more than rapid's bitstream and break Example's determinism).
type node struct {
	s        *jsonschema.Schema
	kinds    kind // the "type" keyword; kAll when absent
	hints    kind // kinds that the schema's type-specific keywords talk about
	props    []string
	patterns []patternProp
	md       int // minimum container depth of any value the schema accepts
	// unsure is set when some keyword of this schema alone is not
	// satisfied by construction, so the value must be validated.
	unsure bool
	// simple is set when the schema says no more than type, const and
	// enum, so membership can be decided without running the validator.
	simple bool
}

// accepts is s.Validate(v) == nil, short-cut for simple schemas.
func (n *node) accepts(v any) bool {
	if !n.simple {
		return n.s.Validate(v) == nil
	}
	if k := kindOf(v); k&n.kinds == 0 {
		return false
	}
	if n.s.Const != nil && !equal(*n.s.Const, v) {
		return false
	}
	return n.s.Enum == nil || containsEqual(n.s.Enum.Values, v)
}

type patternProp struct {
	re jsonschema.Regexp
	s  *jsonschema.Schema
}

// graph holds the nodes of every schema reachable from a root. It is never
// written after analyze returns, so generators can be shared by goroutines.
type graph struct {
	nodes map[*jsonschema.Schema]*node
}

func analyze(root *jsonschema.Schema) *graph {
	g := &graph{nodes: map[*jsonschema.Schema]*node{}}
	var order []*node
	stack := []*jsonschema.Schema{root}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s == nil || g.nodes[s] != nil {
			continue
		}
		n := newNode(s)
		g.nodes[s] = n
		order = append(order, n)
		stack = appendChildren(stack, s)
	}
	// Bellman-Ford style relaxation: depths only decrease from inf, and
	// each pass settles at least one more level, so this terminates.
	for changed := true; changed; {
		changed = false
		for _, n := range order {
			if d := g.minDepth(n); d < n.md {
				n.md = d
				changed = true
			}
		}
	}
	return g
}

func newNode(s *jsonschema.Schema) *node {
	n := &node{s: s, kinds: kindsOf(s.Types), md: inf}
	for name := range s.Properties {
		n.props = append(n.props, name)
	}
	slices.Sort(n.props)
	for re, ps := range s.PatternProperties {
		n.patterns = append(n.patterns, patternProp{re, ps})
	}
	slices.SortFunc(n.patterns, func(a, b patternProp) int { return strings.Compare(a.re.String(), b.re.String()) })

	if len(s.Properties) > 0 || len(s.Required) > 0 || s.AdditionalProperties != nil ||
		len(s.PatternProperties) > 0 || s.PropertyNames != nil || s.MinProperties != nil ||
		s.MaxProperties != nil || len(s.DependentRequired) > 0 || len(s.Dependencies) > 0 {
		n.hints |= kObject
	}
	if s.Items != nil || s.Items2020 != nil || len(s.PrefixItems) > 0 || s.MinItems != nil ||
		s.MaxItems != nil || s.Contains != nil || s.UniqueItems {
		n.hints |= kArray
	}
	if s.MinLength != nil || s.MaxLength != nil || s.Pattern != nil || s.Format != nil {
		n.hints |= kString
	}
	if s.Minimum != nil || s.Maximum != nil || s.ExclusiveMinimum != nil ||
		s.ExclusiveMaximum != nil || s.MultipleOf != nil {
		n.hints |= kNumber
	}

	n.simple = s.Bool == nil && s.Ref == nil && s.RecursiveRef == nil && s.DynamicRef == nil &&
		s.Not == nil && len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 && s.If == nil &&
		s.Format == nil && n.hints == 0 && len(s.DependentSchemas) == 0 &&
		s.UnevaluatedProperties == nil && s.UnevaluatedItems == nil && len(s.Extensions) == 0 &&
		s.ContentEncoding == nil && s.ContentMediaType == nil && s.ContentSchema == nil

	hasSchemaDep := false
	for _, d := range s.Dependencies {
		if _, ok := d.(*jsonschema.Schema); ok {
			hasSchemaDep = true
		}
	}
	n.unsure = len(s.OneOf) > 0 || s.Not != nil || s.If != nil ||
		len(s.DependentSchemas) > 0 || hasSchemaDep ||
		s.UnevaluatedProperties != nil || s.UnevaluatedItems != nil ||
		(s.Contains != nil && s.MaxContains != nil) ||
		s.DynamicRef != nil || s.RecursiveRef != nil ||
		len(s.Extensions) > 0 ||
		s.ContentEncoding != nil || s.ContentMediaType != nil || s.ContentSchema != nil
	return n
}

func appendChildren(out []*jsonschema.Schema, s *jsonschema.Schema) []*jsonschema.Schema {
	out = append(out, s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else, s.PropertyNames,
		s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema)
	if s.DynamicRef != nil {
		out = append(out, s.DynamicRef.Ref)
	}
	out = append(out, s.AllOf...)
	out = append(out, s.AnyOf...)
	out = append(out, s.OneOf...)
	out = append(out, s.PrefixItems...)
	for _, c := range s.Properties {
		out = append(out, c)
	}
	for _, c := range s.PatternProperties {
		out = append(out, c)
	}
	for _, c := range s.DependentSchemas {
		out = append(out, c)
	}
	for _, d := range s.Dependencies {
		if c, ok := d.(*jsonschema.Schema); ok {
			out = append(out, c)
		}
	}
	if c, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
		out = append(out, c)
	}
	if c, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
		out = append(out, c)
	}
	switch it := s.Items.(type) {
	case *jsonschema.Schema:
		out = append(out, it)
	case []*jsonschema.Schema:
		out = append(out, it...)
	}
	return out
}

func (g *graph) depthOf(s *jsonschema.Schema) int {
	if s == nil {
		return 0
	}
	return g.nodes[s].md
}

// minDepth recomputes n.md from its neighbours' current estimates. It is a
// heuristic (it does not intersect conflicting allOf branches) used only to
// steer choices towards values that end, so optimism is harmless.
func (g *graph) minDepth(n *node) int {
	s := n.s
	if s.Bool != nil {
		if *s.Bool {
			return 0
		}
		return inf
	}
	d := g.ownDepth(n)
	for _, r := range []*jsonschema.Schema{s.Ref, s.RecursiveRef} {
		d = max(d, g.depthOf(r))
	}
	if s.DynamicRef != nil {
		d = max(d, g.depthOf(s.DynamicRef.Ref))
	}
	for _, c := range s.AllOf {
		d = max(d, g.depthOf(c))
	}
	for _, alts := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
		if len(alts) == 0 {
			continue
		}
		best := inf
		for _, c := range alts {
			best = min(best, g.depthOf(c))
		}
		d = max(d, best)
	}
	return min(d, inf)
}

func (g *graph) ownDepth(n *node) int {
	s := n.s
	if s.Const != nil {
		return valueDepth(*s.Const)
	}
	if s.Enum != nil {
		best := inf
		for _, v := range s.Enum.Values {
			best = min(best, valueDepth(v))
		}
		return best
	}
	if n.kinds&kScalar != 0 {
		return 0
	}
	best := inf
	if n.kinds&kArray != 0 {
		d := 1
		if s.MinItems != nil {
			for i := 0; i < *s.MinItems; i++ {
				for _, c := range itemSchemas(s, i) {
					d = max(d, 1+g.depthOf(c))
				}
			}
		}
		best = min(best, d)
	}
	if n.kinds&kObject != 0 {
		d := 1
		for _, name := range s.Required {
			for _, c := range propSchemas(n, name) {
				d = max(d, 1+g.depthOf(c))
			}
		}
		best = min(best, d)
	}
	return best
}

// itemSchemas lists the schemas of one node that apply to array index i,
// across the draft-07 (items array + additionalItems) and 2020-12
// (prefixItems + items) spellings. A nil entry never appears.
func itemSchemas(s *jsonschema.Schema, i int) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	if s.DraftVersion >= 2020 || s.Items == nil {
		if i < len(s.PrefixItems) {
			return append(out, s.PrefixItems[i])
		}
		if s.Items2020 != nil {
			out = append(out, s.Items2020)
		}
	}
	switch it := s.Items.(type) {
	case *jsonschema.Schema:
		out = append(out, it)
	case []*jsonschema.Schema:
		if i < len(it) {
			return append(out, it[i])
		}
		if c, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
			out = append(out, c)
		}
	}
	return out
}

// itemLimit is how many items a node admits at all: finite when trailing
// items are forbidden by false, -1 otherwise.
func itemLimit(s *jsonschema.Schema) int {
	isFalse := func(v any) bool {
		switch v := v.(type) {
		case bool:
			return !v
		case *jsonschema.Schema:
			return v != nil && v.Bool != nil && !*v.Bool
		}
		return false
	}
	if s.Items2020 != nil && isFalse(s.Items2020) {
		return len(s.PrefixItems)
	}
	switch it := s.Items.(type) {
	case *jsonschema.Schema:
		if isFalse(it) {
			return 0
		}
	case []*jsonschema.Schema:
		if isFalse(s.AdditionalItems) {
			return len(it)
		}
	}
	return -1
}

// propSchemas lists the schemas of one node that apply to the value of
// property name: properties and matching patternProperties, or
// additionalProperties when neither names it.
func propSchemas(n *node, name string) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	if c, ok := n.s.Properties[name]; ok {
		out = append(out, c)
	}
	for _, p := range n.patterns {
		if p.re.MatchString(name) {
			out = append(out, p.s)
		}
	}
	if len(out) == 0 {
		if c, ok := n.s.AdditionalProperties.(*jsonschema.Schema); ok {
			out = append(out, c)
		}
	}
	return out
}

// declares reports whether the node evaluates property name itself.
func (n *node) declares(name string) bool {
	if _, ok := n.s.Properties[name]; ok {
		return true
	}
	for _, p := range n.patterns {
		if p.re.MatchString(name) {
			return true
		}
	}
	return false
}

// admits reports whether the node's additionalProperties lets an
// undeclared property exist.
func (n *node) admitsExtra() bool {
	switch ap := n.s.AdditionalProperties.(type) {
	case bool:
		return ap
	case *jsonschema.Schema:
		return ap.Bool == nil || *ap.Bool
	}
	return true
}
