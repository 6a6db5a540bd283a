package schema

import (
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
			kept[k] = v
		}
		for c, names := range re.members {
			all, _ := top[c].(map[string]any)
			some := make(map[string]any, len(names))
			for n := range names {
				if v, ok := all[n]; ok {
					some[n] = v
				}
			}
			kept[c] = some
		}
		for _, c := range containers {
			if _, reached := re.members[c]; !reached {
				if _, has := top[c]; has {
					kept[c] = map[string]any{}
				}
			}
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
	doc     any
	whole   bool
	members map[string]map[string]bool // container → member names
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
		re = &reach{members: map[string]map[string]bool{}}
		p.files[f] = re
		doc, err := readDoc(p.r.fsys, f)
		if err != nil {
			return
		}
		re.doc = doc
		top, ok := doc.(map[string]any)
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
			if old || (!isContainer(k) && (naming(k, v) || p.named(v))) {
				p.keepWhole(f, re)
				return
			}
		}
		// The library resolves the references of the document's root
		// schema when it compiles any part of it.
		for k, v := range top {
			if !isContainer(k) {
				p.follow(f, v)
			}
		}
		if re.whole {
			return
		}
	}
	if re.doc == nil || re.whole {
		return
	}
	c, name, ok := member(frag)
	top := re.doc.(map[string]any)
	if _, isObj := top[c].(map[string]any); !ok || !isObj {
		p.keepWhole(f, re)
		return
	}
	if re.members[c][name] {
		return
	}
	if re.members[c] == nil {
		re.members[c] = map[string]bool{}
	}
	re.members[c][name] = true
	if v, ok := top[c].(map[string]any)[name]; ok {
		if p.named(v) {
			p.keepWhole(f, re)
			return
		}
		p.follow(f, v)
	}
}

// keepWhole keeps f whole, and follows every reference in it.
func (p *pruner) keepWhole(f string, re *reach) {
	re.whole = true
	re.members = nil
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
