package scenario

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/wirecheck/wirecheck/internal/jsonval"
	"github.com/wirecheck/wirecheck/internal/schema"
)

// A value in a send step may stand for something only known while the
// scenario runs, written as a one-level object whose keys start with '$':
//
//	{$from: NAME, $path: /result/state, $default: {}}
//	    the value at $path in the response to the send named NAME (waited
//	    for if it has not arrived), or $default when the response has none;
//	    this is how a protocol's state, cursors or session ids are carried
//	    from one call to the next, and how a fuzz reproducer names what
//	    the server made (a taskId a call made, a page's cursor), so its
//	    replay asks about what the replayed server made.
//	{$param: KEY, $default: {}}
//	    the --param KEY=VALUE setting, decoded as JSON when it is JSON and
//	    taken as a string otherwise, or $default when it is not set.
//
// Without $default, a value that cannot be found stops the scenario.
const (
	refFrom    = "$from"
	refPath    = "$path"
	refParam   = "$param"
	refDefault = "$default"
)

// reference reports whether v is a reference object, and what is wrong with
// it ("" when nothing). named says which send names are defined so far.
func reference(v any, named map[string]bool) (bool, string) {
	m, isMap := v.(map[string]any)
	if !isMap {
		return false, ""
	}
	_, from := m[refFrom]
	_, param := m[refParam]
	if !from && !param {
		return false, ""
	}
	allowed := map[string]bool{refDefault: true}
	switch {
	case from && param:
		return true, "a reference takes $from or $param, not both"
	case from:
		allowed[refFrom], allowed[refPath] = true, true
		name, _ := m[refFrom].(string)
		if name == "" {
			return true, "$from must name an earlier send step (its 'as')"
		}
		if !named[name] {
			return true, fmt.Sprintf("$from %q: no earlier send step has 'as: %s'", name, name)
		}
		ptr, isStr := m[refPath].(string)
		if !isStr || (ptr != "" && !strings.HasPrefix(ptr, "/")) {
			return true, "$path must be a JSON pointer (\"\" for the whole response, or starting with '/')"
		}
	default:
		allowed[refParam] = true
		if k, _ := m[refParam].(string); k == "" {
			return true, "$param must name a --param key"
		}
	}
	var extra []string
	for k := range m {
		if !allowed[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return true, "unknown key(s) in a reference: " + strings.Join(extra, ", ")
	}
	return true, ""
}

// checkRefs walks a send value and returns what is wrong with its
// references.
func checkRefs(v any, named map[string]bool) []string {
	if isRef, prob := reference(v, named); isRef {
		if prob != "" {
			return []string{prob}
		}
		return nil
	}
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			out = append(out, checkRefs(x[k], named)...)
		}
	case []any:
		for _, it := range x {
			out = append(out, checkRefs(it, named)...)
		}
	}
	return out
}

// errUnresolved stops a scenario whose reference found nothing.
var errUnresolved = errors.New("reference cannot be resolved")

// resolve returns v with every reference replaced by its value.
func (e *Env) resolve(v any) (any, error) {
	if isRef, _ := reference(v, nil); isRef {
		m := v.(map[string]any)
		def, hasDef := m[refDefault]
		if key, ok := m[refParam].(string); ok {
			s, set := e.Params[key]
			switch {
			case set:
				if val, err := schema.Decode([]byte(s)); err == nil {
					return val, nil
				}
				return s, nil
			case hasDef:
				return jsonval.Clone(def), nil
			}
			return nil, fmt.Errorf("%w: --param %s is not set", errUnresolved, key)
		}
		name, _ := m[refFrom].(string)
		ptr, _ := m[refPath].(string)
		c := e.named[name]
		if c == nil {
			return nil, fmt.Errorf("%w: no send step is named %q", errUnresolved, name)
		}
		in, err := e.Await(c, 0)
		if err != nil {
			return nil, err
		}
		if got, ok := in.Field(ptr); ok {
			return got, nil
		}
		if hasDef {
			return jsonval.Clone(def), nil
		}
		return nil, fmt.Errorf("%w: the response to %s has nothing at %s", errUnresolved, name, ptr)
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, it := range x {
			r, err := e.resolve(it)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			r, err := e.resolve(it)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}
