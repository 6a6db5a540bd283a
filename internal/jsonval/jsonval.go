// Package jsonval copies JSON values as they are held in Go: the maps,
// slices and scalars encoding/json and YAML decode into an any. A value
// handed to a request or a generator is copied before it is changed, so the
// spec's templates and the schemas' enum and const values are never
// altered through an alias.
package jsonval

// Clone returns v with every map and slice in it copied; scalars are
// immutable and shared.
func Clone(v any) any { return Map(v, nil) }

// Map returns v with every map and slice in it copied and every other value
// replaced by leaf(value) (kept as it is when leaf is nil). A nil map or
// slice stays nil: it encodes as null, and so does its copy.
func Map(v any, leaf func(any) any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Map(e, leaf)
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Map(e, leaf)
		}
		return out
	}
	if leaf != nil {
		return leaf(v)
	}
	return v
}
