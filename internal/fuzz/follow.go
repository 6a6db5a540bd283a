package fuzz

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/jsonval"
	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
)

// The fuzz model's follow-up requests (spec.FuzzFollow): requests about
// one of the server's listed items (spec.FuzzSource) or about what it
// declared, sent only where its setup's answers say the server offers
// them; some are taken back by a later action (undo), some stay open
// until a later action cancels them (open).

// undoable is a follow-up request that was answered, which a later action
// may take back.
type undoable struct {
	fl   *spec.FuzzFollow
	item string
	// val is what the request named the item by (itemValue).
	val any
}

// opened is a request that stays open (spec.FuzzOpen): the name its steps
// know it by and its id.
type opened struct {
	fl   *spec.FuzzFollow
	name string
	id   any
}

// declares reports whether every condition holds in the answers of the
// process's setup: each pointer present in one of them, neither false
// nor null (what the server declared, a capability).
func (pr *proc) declares(when []string) bool {
	for _, ptr := range when {
		held := false
		for _, in := range pr.handshake {
			if v, ok := in.Field(ptr); ok && v != nil && v != false {
				held = true
				break
			}
		}
		if !held {
			return false
		}
	}
	return true
}

// listSources reads every source the server offers, each page, into
// pr.items, in the order of their names (a process lists the same way
// every time).
func (pr *proc) listSources() error {
	f := pr.c.cfg.Protocol.Fuzz
	names := make([]string, 0, len(f.Sources))
	for name := range f.Sources {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		src := f.Sources[name]
		if src.List == nil || !pr.declares(src.When) {
			continue
		}
		pr.setShape("list " + name)
		after := ""
		for page := 0; page < maxPages; page++ {
			req := fill(src.List, "", nil, pr)
			if page > 0 {
				setPointer(req, src.Next.To, made{from: after, path: src.Next.From}.ref())
			}
			in, err := pr.call(req)
			pr.release(after)
			if err != nil {
				return err
			}
			if in == nil {
				break
			}
			items, _ := in.Field(src.Items)
			list, _ := items.([]any)
			for _, it := range list {
				if n, _ := peer.Pointer(it, src.Name); n != nil {
					if s, ok := n.(string); ok && s != "" {
						pr.items[name] = append(pr.items[name], s)
					}
				}
			}
			if src.Next == nil {
				break
			}
			if cursor, _ := in.Field(src.Next.From); cursor == nil {
				break
			}
			after = pr.hold(pr.name())
		}
	}
	return nil
}

// follows are the follow-up requests the process's server offers: their
// conditions hold and their source listed an item.
func (pr *proc) follows() []*spec.FuzzFollow {
	f := pr.c.cfg.Protocol.Fuzz
	if f == nil {
		return nil
	}
	var out []*spec.FuzzFollow
	for _, fl := range f.Follow {
		if pr.declares(fl.When) && (fl.Item == "" || len(pr.items[fl.Item]) > 0) {
			out = append(out, fl)
		}
	}
	return out
}

// drawFollow draws a follow-up request: which, about which item, and the
// members of its "$some" objects.
func (s *sequence) drawFollow() *action {
	pr := s.pr
	fl := rapid.SampledFrom(pr.follows()).Draw(s.t, "follow-up")
	item := ""
	if fl.Item != "" {
		item = rapid.SampledFrom(pr.items[fl.Item]).Draw(s.t, fl.Item)
	}
	req := s.some(fl.Request)
	val := pr.itemValue(fl.Item, item)
	return &action{pr.itemLabel(fl.Request, fl.Item, item), func() error { return pr.follow(fl, req, item, val) }}
}

// some replaces each {"$some": {MEMBER: {when, value}}} of a template by an
// object of a drawn choice of the members whose conditions hold, drawn in
// the order of their names.
func (s *sequence) some(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if members, ok := x["$some"].(map[string]any); ok && len(x) == 1 {
			names := make([]string, 0, len(members))
			for k := range members {
				names = append(names, k)
			}
			sort.Strings(names)
			out := map[string]any{}
			for _, k := range names {
				m, _ := members[k].(map[string]any)
				if !s.pr.declares(pointers(m["when"])) {
					continue
				}
				if rapid.Bool().Draw(s.t, k) {
					out[k] = jsonval.Clone(m["value"])
				}
			}
			return out
		}
		out := make(map[string]any, len(x))
		for k, y := range x {
			out[k] = s.some(y)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, y := range x {
			out[i] = s.some(y)
		}
		return out
	}
	return v
}

// pointers reads a "$some" member's when: a list of JSON pointers.
func pointers(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// follow sends a follow-up request about item, named in it by val
// (itemValue): awaited, and kept for a later undo once answered; or,
// open, sent and left open, its acknowledgement expected.
func (pr *proc) follow(fl *spec.FuzzFollow, req any, item string, val any) error {
	v := fill(req, val, nil, pr)
	own, _ := peer.Pointer(v, "/params/_meta")
	own = jsonval.Clone(own)
	name := pr.request(v)
	// The model's params replace what a generated request says of
	// them; a follow-up's own _meta members (a capability it declares
	// beside the model's) are the model's intent, kept beside them.
	if m, ok := own.(map[string]any); ok {
		if p, ok := v.(map[string]any)["params"].(map[string]any); ok {
			p["_meta"] = mergeObjects(p["_meta"], m)
		}
	}
	id, _ := peer.Pointer(v, pr.c.cfg.Protocol.Correlation.ID)
	if fl.Open == nil {
		if err := pr.do(scenario.Step{Send: v, As: name}, scenario.Step{Expect: name}); err != nil {
			return err
		}
		in := pr.env.Answer(name)
		if fl.Undo != nil && in != nil {
			pr.undo = append(pr.undo, undoable{fl: fl, item: item, val: val})
		}
		if in != nil {
			pr.yield(fl, in, name)
		}
		return nil
	}
	steps := []scenario.Step{{Send: v, As: name, Open: true}}
	if a := fl.Open.Ack; a != nil {
		match, _ := withID(a.Match, id).(map[string]any)
		st := scenario.Step{ExpectFrame: true, Seek: true, Rule: a.Rule, Assert: scenario.Assert{Match: match, Type: a.Type}}
		for _, x := range a.Also {
			m, _ := withID(x.Match, id).(map[string]any)
			st.Also = append(st.Also, scenario.Also{Rule: x.Rule, Assert: scenario.Assert{Match: m, Type: x.Type}})
		}
		steps = append(steps, st)
	}
	// Open once sent: a later action may cancel it whatever came back.
	pr.open = append(pr.open, opened{fl: fl, name: name, id: id})
	return pr.do(steps...)
}

// mergeObjects is base with over's members added, objects both hold
// merged member by member, over winning any other clash.
func mergeObjects(base any, over map[string]any) any {
	b, ok := base.(map[string]any)
	if !ok {
		return over
	}
	for k, x := range over {
		if xo, isObj := x.(map[string]any); isObj {
			b[k] = mergeObjects(b[k], xo)
			continue
		}
		b[k] = x
	}
	return b
}

// maxYielded bounds the items a process's follow-up requests add to a
// source: the newest are kept (a task lives a while; the oldest may be
// gone).
const maxYielded = 16

// yield adds to their sources the items an answer names (spec.FuzzFollow
// Yields), each once. The answer is that of the send named name: a
// request about one of its items names it by a reference to it (made),
// and its answer is kept while an item refers to it.
func (pr *proc) yield(fl *spec.FuzzFollow, in *peer.Inbound, name string) {
	kept := false
	for item, ptr := range fl.Yields {
		v, _ := in.Field(ptr)
		s, ok := v.(string)
		if !ok || s == "" || slices.Contains(pr.items[item], s) {
			continue
		}
		list := append(pr.items[item], s)
		if len(list) > maxYielded {
			for _, gone := range list[:len(list)-maxYielded] {
				delete(pr.made, [2]string{item, gone})
			}
			list = list[len(list)-maxYielded:]
		}
		pr.items[item] = list
		pr.made[[2]string{item, s}] = made{from: name, path: ptr}
		kept = true
	}
	if kept {
		pr.hold(name)
		pr.producers = append(pr.producers, name)
	}
}

// made is where the server made an item: the answer to the send named
// from, at path.
type made struct{ from, path string }

// ref is the scenario reference to it (scenario.Step.Send, refs.go),
// which the step resolves from the answer of the run that sends it.
func (m made) ref() map[string]any { return map[string]any{"$from": m.from, "$path": m.path} }

// itemValue is what a request names an item of a source by: a reference
// to the answer that made it, when the server made it (a taskId a call
// yielded), so a reproducer refers to what the replayed server makes, not
// to what this one made; the item itself when it was listed (a listed
// name is the server's to keep; which of its list it is, is not).
func (pr *proc) itemValue(source, item string) any {
	if m, ok := pr.made[[2]string{source, item}]; ok {
		return m.ref()
	}
	return item
}

// hold keeps the answer to the send named name past its unit (do
// forgets the sends of the unit before), for a later request refers to
// it: its cursor (the next page's request) or an item the server made.
// It returns name.
func (pr *proc) hold(name string) string {
	pr.held[name] = true
	return name
}

// release forgets a held answer once the request that referred to it has
// run ("" is none).
func (pr *proc) release(name string) {
	if name != "" {
		delete(pr.held, name)
		pr.env.ForgetNamed(name)
	}
}

// forgetProducers forgets the answers kept for items no longer held (a
// source keeps maxYielded). It runs between sequences: within one, an
// action drawn ahead may already refer to an item dropped since.
func (pr *proc) forgetProducers() {
	used := map[string]bool{}
	for _, m := range pr.made {
		used[m.from] = true
	}
	for _, u := range pr.undo {
		if r, ok := u.val.(map[string]any); ok {
			name, _ := r["$from"].(string)
			used[name] = true
		}
	}
	kept := pr.producers[:0]
	for _, name := range pr.producers {
		if used[name] {
			kept = append(kept, name)
			continue
		}
		pr.release(name)
	}
	pr.producers = kept
}

// drawUndo draws which answered follow-up request a later one takes back.
func (s *sequence) drawUndo() *action {
	pr := s.pr
	i := rapid.IntRange(0, len(pr.undo)-1).Draw(s.t, "undo")
	u := pr.undo[i]
	return &action{pr.itemLabel(u.fl.Undo, u.fl.Item, u.item), func() error {
		pr.undo = append(pr.undo[:i:i], pr.undo[i+1:]...)
		_, err := pr.call(fill(u.fl.Undo, u.val, nil, pr))
		return err
	}}
}

// drawCancel draws which open request a cancellation closes: the
// notification, then the probe (once the server has answered a request
// sent after it, it has read the cancellation), then the open request's
// answer judged: none may have come.
func (s *sequence) drawCancel() *action {
	pr := s.pr
	i := rapid.IntRange(0, len(pr.open)-1).Draw(s.t, "cancel")
	o := pr.open[i]
	label := "cancellation"
	if m, ok := o.fl.Request["method"].(string); ok {
		label += " of " + m
	}
	return &action{label, func() error {
		pr.open = append(pr.open[:i:i], pr.open[i+1:]...)
		b, err := json.Marshal(withID(o.fl.Open.Cancel, o.id))
		if err != nil {
			return err
		}
		line := string(b)
		steps := []scenario.Step{{SendLine: &line, Answered: new(bool)}, pr.probeStep()}
		if o.fl.Open.Unanswered != "" {
			steps = append(steps, scenario.Step{Expect: o.name, Cancelled: true, Rule: o.fl.Open.Unanswered})
		}
		return pr.do(steps...)
	}}
}

// withID copies a template, "$id" replaced by a request's id.
func withID(v any, id any) any {
	return jsonval.Map(v, func(x any) any {
		if s, ok := x.(string); ok && s == "$id" {
			return jsonval.Clone(id)
		}
		return x
	})
}

// itemLabel names a follow-up request by its method and item: a listed
// item by its name, one the server made by its source alone (a random
// taskId would make each run's failure a bug of its own, and rapid
// shrinks a failure only while its label stays the same).
func (pr *proc) itemLabel(req map[string]any, source, item string) string {
	m, _ := req["method"].(string)
	if m == "" {
		m = "follow-up request"
	}
	if item == "" {
		return m
	}
	if _, ok := pr.made[[2]string{source, item}]; ok {
		return fmt.Sprintf("%s of one of the %s the server made", m, source)
	}
	return fmt.Sprintf("%s of %q", m, item)
}
