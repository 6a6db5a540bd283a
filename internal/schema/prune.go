package schema

import (
	"bytes"
	"io/fs"
	"path"
	"strings"
)

// prune returns, for each file the references refs (as Get takes them)
// reach, the document the compiler needs of it: the file whole, or, when
// only named members of its top-level definitions ("#/definitions/X",
// "#/$defs/X") are reached, the file without the members nothing
// reaches. A schema compiled from either is the same; the pruned one
// spares the library's walk of every subschema of the rest (a third of
// each MCP revision's file, and most of compiling it is that walk and
// the decoding).
//
// What is reached is followed through every "$ref" of what is kept,
// into other files too, to a fixed point. Whatever this cannot follow
// for certain keeps a file whole: a reference that is not a plain
// member name, an $id or anchor of any kind (they name places other
// than by path), a URL with a scheme. A file that cannot be read is left
// to the loader, and its error to the compile. nil when nothing is
// pruned.
func (r *Registry) prune(refs []string) map[string]any {
	p := pruner{r: r, files: map[string]*reach{}}
	for _, ref := range refs {
		f, frag, _ := strings.Cut(ref, "#")
		if full := r.files[f]; full != "" {
			p.add(full, frag)
		}
	}
	if p.giveUp {
		return nil
	}
	out := map[string]any{}
	for f, re := range p.files {
		if re.doc == nil {
			continue
		}
		if re.whole {
			out[f] = re.doc
			continue
		}
		top := re.doc.(map[string]any)
		kept := make(map[string]any, len(top))
		for k, v := range top {
			if re.container(k) {
				ms := re.members[k]
				if ms == nil {
					ms = map[string]any{}
				}
				v = ms
			}
			kept[k] = v
		}
		out[f] = kept
	}
	return out
}

// containers are the top-level members whose own members prune keeps
// one by one.
var containers = []string{"definitions", "$defs"}

// reach is what refs reach of one file.
type reach struct {
	// doc is the file decoded, but for the members of its containers
	// when raw holds them (as lazyDoc leaves them).
	doc     any
	raw     map[string]map[string][]byte
	whole   bool
	members map[string]map[string]any // container → the members reached
}

// container reports whether k is a container of the document, as add
// prunes them.
func (re *reach) container(k string) bool {
	if re.raw != nil {
		_, ok := re.raw[k]
		return ok
	}
	_, ok := re.doc.(map[string]any)[k].(map[string]any)
	return ok && isContainer(k)
}

// member is the value of member name of container c, decoded.
func (re *reach) member(c, name string) (any, bool) {
	if re.raw == nil {
		v, ok := re.doc.(map[string]any)[c].(map[string]any)[name]
		return v, ok
	}
	b, ok := re.raw[c][name]
	if !ok {
		return nil, false
	}
	v, err := Decode(b)
	return v, err == nil
}

type pruner struct {
	r      *Registry
	files  map[string]*reach
	giveUp bool
}

// add marks the place frag (a JSON pointer, "" for the whole document)
// of file f reached, and what it refers to.
func (p *pruner) add(f, frag string) {
	re := p.files[f]
	if re == nil {
		re = &reach{members: map[string]map[string]any{}}
		p.files[f] = re
		if _, _, isMember := member(frag); isMember {
			if data, err := fs.ReadFile(p.r.fsys, f); err == nil {
				if top, raw, ok := lazyDoc(data); ok {
					re.doc, re.raw = top, raw
				}
			}
		}
		if re.doc == nil {
			doc, err := readDoc(p.r.fsys, f)
			if err != nil {
				return
			}
			re.doc = doc
		}
		top, ok := re.doc.(map[string]any)
		if !ok {
			p.keepWhole(f, re)
			return
		}
		// Outside its containers a document names a base or anchors
		// only through these; drafts before 6 name ids "id", a word
		// schemas use as a property too, so theirs are kept whole.
		sch, _ := top["$schema"].(string)
		old := strings.Contains(sch, "draft-04") || strings.Contains(sch, "draft-03")
		for k, v := range top {
			if old || (!re.container(k) && (naming(k, v) || p.named(v))) {
				p.keepWhole(f, re)
				return
			}
		}
		// The library resolves the references of the document's root
		// schema when it compiles any part of it.
		for k, v := range top {
			if !re.container(k) {
				p.follow(f, v)
			}
		}
	}
	if re.doc == nil || re.whole {
		return
	}
	c, name, ok := member(frag)
	if !ok || !re.container(c) {
		p.keepWhole(f, re)
		return
	}
	if _, seen := re.members[c][name]; seen {
		return
	}
	v, ok := re.member(c, name)
	if !ok {
		// No such member: the compile says so, as it would have.
		return
	}
	if re.members[c] == nil {
		re.members[c] = map[string]any{}
	}
	re.members[c][name] = v
	if p.named(v) {
		p.keepWhole(f, re)
		return
	}
	p.follow(f, v)
}

// keepWhole keeps f whole, and follows every reference in it.
func (p *pruner) keepWhole(f string, re *reach) {
	re.whole = true
	re.members = nil
	if re.raw != nil {
		re.raw = nil
		doc, err := readDoc(p.r.fsys, f)
		if err != nil {
			re.doc = nil
			return
		}
		re.doc = doc
	}
	p.follow(f, re.doc)
}

// follow adds what the references in v, a part of file f, refer to.
func (p *pruner) follow(f string, v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && (k == "$ref" || k == "$dynamicRef" || k == "$recursiveRef") {
				p.ref(f, s)
				continue
			}
			p.follow(f, x)
		}
	case []any:
		for _, x := range v {
			p.follow(f, x)
		}
	}
}

func (p *pruner) ref(f, ref string) {
	u, frag, _ := strings.Cut(ref, "#")
	switch {
	case u == "":
		p.add(f, frag)
	case strings.Contains(u, ":"):
		// An absolute URL: the loader refuses all but our own files,
		// which no file names so; should one, nothing is pruned.
		p.giveUp = true
	default:
		if to := path.Join(path.Dir(f), u); p.r.known[to] {
			p.add(to, frag)
		}
	}
}

// named reports whether v holds an $id or an anchor anywhere: a place a
// reference can name otherwise than by its path.
func (p *pruner) named(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if naming(k, x) || p.named(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if p.named(x) {
				return true
			}
		}
	}
	return false
}

// naming reports whether k: v names a place (a property of that name
// holds a schema, not a string).
func naming(k string, v any) bool {
	if _, ok := v.(string); !ok {
		return false
	}
	switch k {
	case "$id", "$anchor", "$dynamicAnchor":
		return true
	}
	return false
}

func isContainer(k string) bool { return k == "definitions" || k == "$defs" }

// member splits "/definitions/X" or "/$defs/X" into its container and
// name, for a name that needs no unescaping.
func member(frag string) (container, name string, ok bool) {
	for _, c := range containers {
		if n, found := strings.CutPrefix(frag, "/"+c+"/"); found && n != "" && !strings.ContainsAny(n, "/~%") {
			return c, n, true
		}
	}
	return "", "", false
}

// lazyDoc decodes a document whose top level is an object, all but the
// members of its containers, which it leaves as their bytes: a member
// nothing reaches is never decoded. ok is false for anything else (a
// name twice, a syntax error), which readDoc then decodes, or reports.
func lazyDoc(data []byte) (top map[string]any, raw map[string]map[string][]byte, ok bool) {
	d := decoder{b: data}
	d.space()
	if d.i >= len(d.b) || d.b[d.i] != '{' {
		return nil, nil, false
	}
	d.i++
	top, raw = map[string]any{}, map[string]map[string][]byte{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return top, raw, d.end()
	}
	for {
		k, ok := d.key()
		if !ok {
			return nil, nil, false
		}
		if _, dup := top[k]; dup {
			return nil, nil, false
		}
		if isContainer(k) && d.i < len(d.b) && d.b[d.i] == '{' {
			ms, ok := d.rawMembers()
			if !ok {
				return nil, nil, false
			}
			raw[k] = ms
			top[k] = nil // its members are in raw
		} else {
			v, ok := d.value(0)
			if !ok {
				return nil, nil, false
			}
			top[k] = v
		}
		more, ok := d.more('}')
		if !ok {
			return nil, nil, false
		}
		if !more {
			return top, raw, d.end()
		}
	}
}

// key reads an object's member name and the colon after it.
func (d *decoder) key() (string, bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return "", false
	}
	k, ok := d.name()
	if !ok {
		return "", false
	}
	if d.space(); d.i >= len(d.b) || d.b[d.i] != ':' {
		return "", false
	}
	d.i++
	d.space()
	return k, true
}

// end reports whether only whitespace is left.
func (d *decoder) end() bool {
	d.space()
	return d.i == len(d.b)
}

// rawMembers reads an object, each member's value as its bytes.
func (d *decoder) rawMembers() (map[string][]byte, bool) {
	d.i++ // {
	out := map[string][]byte{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return out, true
	}
	for {
		k, ok := d.key()
		if !ok {
			return nil, false
		}
		if _, dup := out[k]; dup {
			return nil, false
		}
		from := d.i
		if !d.skip() {
			return nil, false
		}
		out[k] = d.b[from:d.i]
		more, ok := d.more('}')
		if !ok {
			return nil, false
		}
		if !more {
			return out, true
		}
	}
}

// skip passes over one value without building it; Decode checks it
// whole when it is decoded.
func (d *decoder) skip() bool {
	if d.i >= len(d.b) {
		return false
	}
	switch d.b[d.i] {
	case '{', '[':
		depth := 0
		for d.i < len(d.b) {
			switch d.b[d.i] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					d.i++
					return true
				}
			case '"':
				if !d.skipStr() {
					return false
				}
				continue
			}
			d.i++
		}
		return false
	case '"':
		return d.skipStr()
	default:
		from := d.i
		for d.i < len(d.b) {
			switch d.b[d.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return d.i > from
			}
			d.i++
		}
		return d.i > from
	}
}

// skipStr passes over a string at d.i (its opening quote). Most of a
// schema file's bytes are in its descriptions, so this finds each quote
// with bytes.IndexByte (vectorised) rather than byte by byte: a quote
// ends the string unless an odd run of backslashes escapes it.
func (d *decoder) skipStr() bool {
	from := d.i + 1
	for at := from; ; {
		q := bytes.IndexByte(d.b[at:], '"')
		if q < 0 {
			d.i = len(d.b)
			return false
		}
		at += q
		n := 0
		for j := at - 1; j >= from && d.b[j] == '\\'; j-- {
			n++
		}
		at++
		if n%2 == 0 {
			d.i = at
			return true
		}
	}
}
