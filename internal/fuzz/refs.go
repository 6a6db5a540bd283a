package fuzz

// A request may refer to the answer of an earlier one ({$from: NAME,
// $path: PTR}, scenario's references): a taskId a call made, the cursor
// of the page before. A history is shrunk by dropping units, so a unit
// may lose the one whose answer it refers to: resolvable drops it too,
// since its request could not be sent, and a reproducer that names a send
// no step has is refused by replay.

// referred lists the sends whose answers a unit's requests refer to.
func referred(u unit) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if name, ok := x["$from"].(string); ok {
				out = append(out, name)
				return
			}
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	for i := range u.steps {
		walk(u.steps[i].Send)
	}
	return out
}

// resolvable is us without the units that refer to a send neither
// defined nor an earlier unit kept names, in order: a unit whose producer
// went goes too, and so, in turn, do those referring to it.
func resolvable(us []unit, defined map[string]bool) []unit {
	names := make(map[string]bool, len(defined))
	for n := range defined {
		names[n] = true
	}
	out := make([]unit, 0, len(us))
	for _, u := range us {
		ok := true
		for _, n := range referred(u) {
			if !names[n] {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		for i := range u.steps {
			if as := u.steps[i].As; as != "" {
				names[as] = true
			}
		}
		out = append(out, u)
	}
	return out
}

// sendNames are the names of the sends of units.
func sendNames(us []unit) map[string]bool {
	out := map[string]bool{}
	for _, u := range us {
		for i := range u.steps {
			if as := u.steps[i].As; as != "" {
				out[as] = true
			}
		}
	}
	return out
}
