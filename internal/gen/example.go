package gen

import (
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"
)

// Example returns one value valid against s, chosen deterministically by
// seed: the same schema, seed and package version always give the same
// value, so a harness run that calls a tool with generated arguments can be
// replayed. It is rapid's (*Generator).Example on Valid(s) with the default
// Options, except that the attempt budget is shared by all of rapid's
// internal retries, so that an unsatisfiable schema fails after
// Options.MaxAttempts sub-values rather than after a thousand full retries.
// Example panics when no value is found; use TryExample to get an error.
func Example(s *jsonschema.Schema, seed uint64) any {
	v, err := TryExample(s, seed)
	if err != nil {
		panic(err)
	}
	return v
}

// TryExample is Example returning an error instead of panicking.
func TryExample(s *jsonschema.Schema, seed uint64) (v any, err error) {
	return exampleWith(newGenerator(s, Options{}), seed)
}

func exampleWith(g *generator, seed uint64) (v any, err error) {
	if g.g.depthOf(g.root) >= inf {
		return nil, fmt.Errorf("gen: no valid value for schema %s: it accepts no finite value", g.root.Location)
	}
	r := &run{generator: g, left: g.o.MaxAttempts}
	gen := rapid.Custom(func(t *rapid.T) any {
		if r.left <= 0 {
			// Returning quickly keeps rapid's remaining tries cheap.
			t.Skip("gen: attempt budget exhausted")
		}
		return r.top(t)
	})
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, fmt.Errorf("gen: no valid value for schema %s: %v", g.root.Location, p)
		}
	}()
	// rapid takes the seed as an int and converts it straight back to
	// uint64, so every uint64 seed survives the round trip.
	return gen.Example(int(seed)), nil
}
