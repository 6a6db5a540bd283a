package gen

import (
	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"
)

// uniqueTries is how often an item is redrawn when uniqueItems rejects it
// as a duplicate before the array is cut short or the attempt abandoned.
const uniqueTries = 8

func (r *run) array(t *rapid.T, f *flat, depth int) []any {
	minI, maxI := 0, -1
	unique := false
	var contains []*jsonschema.Schema
	needContains := 0
	for _, n := range f.nodes {
		s := n.s
		if s.MinItems != nil {
			minI = max(minI, *s.MinItems)
		}
		if s.MaxItems != nil && (maxI < 0 || *s.MaxItems < maxI) {
			maxI = *s.MaxItems
		}
		if l := itemLimit(s); l >= 0 && (maxI < 0 || l < maxI) {
			maxI = l
		}
		unique = unique || s.UniqueItems
		if s.Contains != nil {
			contains = append(contains, s.Contains)
			need := 1
			if s.MinContains != nil {
				need = *s.MinContains
			}
			needContains = max(needContains, need)
		}
	}

	lo := max(minI, needContains)
	hi := max(lo, r.o.MaxItems)
	if maxI >= 0 && maxI < hi {
		hi = maxI
	}
	// A position whose schemas admit nothing (unevaluatedItems: false past
	// the prefix, say) ends the array there.
	for i := range hi {
		if r.depthOfConj(f.itemConj(i)) >= inf {
			hi = i
			break
		}
	}
	// Past the depth limit only the items the schema insists on are made.
	if depth+1+r.depthOfConj(f.itemConj(lo)) > r.o.MaxDepth {
		hi = min(hi, lo)
	}
	if lo > hi {
		reject("array needs %d items but admits %d", lo, hi)
	}
	n := intIn(t, lo, hi, "length")
	at := 0
	if needContains > 0 {
		at = intIn(t, 0, n-needContains, "contains at")
	}

	out := make([]any, 0, n)
	for i := range n {
		conj := f.itemConj(i)
		if needContains > 0 && i >= at && i < at+needContains {
			conj = append(conj, contains...)
		}
		for try := 0; ; try++ {
			v := r.draw(t, conj, depth+1, kAll)
			if !unique || !containsEqual(out, v) {
				out = append(out, v)
				break
			}
			if try == uniqueTries {
				if i >= lo && i >= at+needContains {
					return out
				}
				reject("could not find %d distinct items", lo)
			}
		}
	}
	return out
}

// itemConj is every schema that applies to index i across the conjunction.
func (f *flat) itemConj(i int) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	covered := false
	for _, n := range f.nodes {
		its := itemSchemas(n.s, i)
		covered = covered || len(its) > 0
		out = appendNew(out, its...)
	}
	if !covered {
		for _, n := range f.nodes {
			if n.s.UnevaluatedItems != nil {
				out = appendNew(out, n.s.UnevaluatedItems)
			}
		}
	}
	return out
}

func (r *run) depthOfConj(conj []*jsonschema.Schema) int {
	d := 0
	for _, s := range conj {
		d = max(d, r.g.depthOf(s))
	}
	return d
}

func containsEqual(items []any, v any) bool {
	for _, x := range items {
		if equal(x, v) {
			return true
		}
	}
	return false
}

func appendNew(out []*jsonschema.Schema, ss ...*jsonschema.Schema) []*jsonschema.Schema {
next:
	for _, s := range ss {
		for _, o := range out {
			if o == s {
				continue next
			}
		}
		out = append(out, s)
	}
	return out
}
