package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The skills extension (io.modelcontextprotocol/skills, SEP-2640) of
// 2026-07-28: skills/list, skills/get, resources/directory/read and the
// skill:// files they describe. The skills are four: two with manifests
// (one nested two deep, with a subdirectory), one "dynamic", one left out
// of skills/list but answered by skills/get; skills/list two per page.

const skillsExt = "io.modelcontextprotocol/skills"

// skillFile is one file of a skill, by its path under the skill root.
type skillFile struct{ path, mime, text string }

// refSkill is one skill the server serves.
type refSkill struct {
	// root is the skill's directory URI (no trailing slash).
	root  string
	front obj
	// body follows the frontmatter in SKILL.md.
	body    string
	files   []skillFile
	dynamic bool
	// unlisted skills are answered by skills/get but left out of
	// skills/list (a partial listing is the server's choice).
	unlisted bool
}

// skillsOn reports whether this session serves the extension: the plain
// reference server does in 2026-07-28 (so its own suite passes every rule
// of that revision), unless the variant skills-undeclared or bare leaves
// it out; a profile's server (an Extension) never does.
func (s *server) skillsOn() bool {
	return s.modern() && s.ext == nil && !s.v("bare") && !s.v("skills-undeclared")
}

func (s *server) skillSet() []refSkill {
	name := "git-workflow"
	if s.f("skills-bad-name") {
		name = "Git_Workflow"
	}
	git := refSkill{root: "skill://" + name,
		front: obj{"name": name, "description": "Follow the team's Git conventions for branches and commits", "license": "MIT"},
		body:  "\n# Git workflow\n\nRead references/GUIDE.md before you branch.\n",
		files: []skillFile{{"references/GUIDE.md", "text/markdown", "Branch from main; one topic per branch.\n"}}}
	if s.f("skills-name-mismatch") {
		git.front["name"] = "git-flow"
	}
	prefix := "acme"
	if s.f("skills-authority-bad") {
		prefix = "team@acme"
	}
	refunds := refSkill{root: "skill://" + prefix + "/billing/refunds",
		front: obj{"name": "refunds", "description": "Process customer refund requests per company policy", "metadata": obj{"version": "1.2"}},
		body:  "\n# Refunds\n\nPick a template from examples/.\n",
		files: []skillFile{{"examples/email.md", "text/markdown", "Dear customer,\n"}, {"examples/letters/formal.md", "text/markdown", "Dear Sir or Madam,\n"}}}
	daily := refSkill{root: "skill://reports/daily", dynamic: true,
		front: obj{"name": "daily", "description": "Assemble today's report from live data"},
		body:  "\n# Daily report\n\nAsk for today's figures.\n"}
	hidden := refSkill{root: "skill://acme/internal/audit", unlisted: true,
		front: obj{"name": "audit", "description": "Audit a billing account"},
		body:  "\n# Audit\n"}
	set := []refSkill{git, refunds, daily, hidden}
	if s.v("skills-churn") {
		set = append(set, s.drafts.skill())
	}
	return set
}

// drafts is the skill of the variant skills-churn, whose files change
// while a client reads it, as a skill its author is editing does: each
// skills/list page that lists it adds a note, and a note read once is
// gone. Two reads of it moments apart differ, legitimately.
type drafts struct {
	mu    sync.Mutex
	notes []int
	next  int
}

func (d *drafts) skill() refSkill {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.next == 0 {
		d.notes, d.next = []int{1}, 2
	}
	k := refSkill{root: "skill://drafts",
		front: obj{"name": "drafts", "description": "Notes in progress, added and consumed as they come"},
		body:  "\n# Drafts\n\nRead the notes once each.\n"}
	for _, n := range d.notes {
		k.files = append(k.files, skillFile{"note-" + strconv.Itoa(n) + ".md", "text/markdown", "Note " + strconv.Itoa(n) + ".\n"})
	}
	return k
}

// listed adds a note: a page listing the skill was answered.
func (d *drafts) listed() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.notes = append(d.notes, d.next)
	d.next++
}

// read consumes a note once it was read.
func (d *drafts) read(uri string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, n := range d.notes {
		if uri == "skill://drafts/note-"+strconv.Itoa(n)+".md" {
			d.notes = append(d.notes[:i:i], d.notes[i+1:]...)
			return
		}
	}
}

// skillMD renders a skill's SKILL.md.
func (k refSkill) skillMD() string {
	var b strings.Builder
	b.WriteString("---\n")
	keys := make([]string, 0, len(k.front))
	for key := range k.front {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		switch v := k.front[key].(type) {
		case string:
			b.WriteString(key + ": " + strconv.Quote(v) + "\n")
		case obj:
			b.WriteString(key + ":\n")
			for mk, mv := range v {
				b.WriteString("  " + mk + ": " + strconv.Quote(mv.(string)) + "\n")
			}
		}
	}
	b.WriteString("---\n" + k.body)
	return b.String()
}

// allFiles are the skill's files, SKILL.md first.
func (k refSkill) allFiles() []skillFile {
	return append([]skillFile{{"SKILL.md", "text/markdown", k.skillMD()}}, k.files...)
}

func digest(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func (s *server) skillEntry(k refSkill) obj {
	front := obj{}
	for key, v := range k.front {
		front[key] = v
	}
	if s.f("skills-frontmatter-curated") {
		delete(front, "license")
	}
	e := obj{"uri": k.root + "/SKILL.md", "frontmatter": front}
	if k.dynamic {
		e["resources"] = "dynamic"
	} else {
		var rs []any
		for i, f := range k.allFiles() {
			if i == 0 && s.f("skills-manifest-no-skillmd") {
				continue
			}
			d := digest(f.text)
			if s.f("skills-digest-stale") {
				d = digest(f.text + "\n")
			}
			rs = append(rs, obj{"uri": k.root + "/" + f.path, "digest": d, "size": len(f.text)})
		}
		e["resources"] = rs
	}
	if s.f("skills-entry-no-resources") {
		delete(e, "resources")
	}
	return e
}

// skillsCaps adds the extension to 2026-07-28 capabilities.
func (s *server) skillsCaps(caps obj) {
	if !s.skillsOn() {
		return
	}
	declareExtension(caps, skillsExt, obj{"directoryRead": true})
	if s.f("skills-no-resources") {
		delete(caps, "resources")
	}
}

func (s *server) skillsCacheable(r obj) obj {
	if s.f("skills-not-cacheable") {
		return r
	}
	r["ttlMs"] = 0
	r["cacheScope"] = "public"
	return r
}

// skillsDispatch answers the extension's methods; false: not one of them.
func (s *server) skillsDispatch(id any, method string, p obj) bool {
	if !s.skillsOn() {
		return false
	}
	switch method {
	case "skills/list":
		s.listSkills(id, p)
	case "skills/get":
		s.getSkill(id, p)
	case "resources/directory/read":
		if s.f("skills-directory-missing") {
			s.fail(id, -32601, "Method not found: "+method)
			return true
		}
		s.readDirectory(id, p)
	default:
		return false
	}
	return true
}

func (s *server) listSkills(id any, p obj) {
	var items []any
	for _, k := range s.skillSet() {
		if !k.unlisted {
			items = append(items, s.skillEntry(k))
		}
	}
	// Two a page whatever the variants, and strict about cursors
	// whatever the faults: those of the core lists do not touch it.
	list, next, ok := s.pageAt(id, p, items, 2, false)
	if !ok {
		return
	}
	res := obj{"skills": list}
	if next != "" {
		res["nextCursor"] = next
	}
	s.result(id, s.skillsCacheable(res))
	if s.v("skills-churn") {
		for _, it := range list {
			if it.(obj)["uri"] == "skill://drafts/SKILL.md" {
				s.drafts.listed()
			}
		}
	}
}

func (s *server) getSkill(id any, p obj) {
	if s.f("skills-get-missing") {
		s.fail(id, -32601, "Method not found: skills/get")
		return
	}
	uri, _ := p["uri"].(string)
	for _, k := range s.skillSet() {
		if k.root+"/SKILL.md" != uri || (s.f("skills-get-nested-missing") && strings.Count(k.root, "/") > 2) {
			continue
		}
		s.result(id, s.skillsCacheable(obj{"skill": s.skillEntry(k)}))
		return
	}
	if s.f("skills-get-unknown-internal") {
		s.fail(id, -32603, "Internal error: no such skill")
		return
	}
	s.fail(id, -32602, "No skill is served at "+uri)
}

// skillRead answers resources/read of a skill file; false: not one.
func (s *server) skillRead(id any, uri string) bool {
	if !s.skillsOn() {
		return false
	}
	for _, k := range s.skillSet() {
		for _, f := range k.allFiles() {
			if k.root+"/"+f.path == uri {
				c := obj{"uri": uri, "mimeType": f.mime, "text": f.text}
				if f.path == "SKILL.md" && s.f("skills-meta-unprefixed") {
					c["_meta"] = obj{"license": k.front["license"]}
				}
				s.result(id, s.cacheable(obj{"contents": []any{c}}))
				if s.v("skills-churn") {
					s.drafts.read(uri)
				}
				return true
			}
		}
	}
	return false
}

// skillResources are the skills' files as resources/list shows them
// (unless the variant skills-not-in-resources leaves them out): each
// SKILL.md named and described from its frontmatter, which it carries
// under the extension's _meta prefix (the fault
// skills-resource-metadata-off names it by its file instead).
func (s *server) skillResources() []any {
	var out []any
	for _, k := range s.skillSet() {
		for _, f := range k.allFiles() {
			r := obj{"uri": k.root + "/" + f.path, "name": path.Base(f.path), "mimeType": f.mime}
			if f.path == "SKILL.md" && !s.f("skills-resource-metadata-off") {
				r["name"], r["description"] = k.front["name"], k.front["description"]
				r["_meta"] = obj{"io.modelcontextprotocol.skills/frontmatter": k.front}
			}
			out = append(out, r)
		}
	}
	return out
}

// readDirectory lists the direct children of a directory of the skill
// namespace: every proper prefix of a skill file's URI is one.
func (s *server) readDirectory(id any, p obj) {
	uri, _ := p["uri"].(string)
	files := map[string]string{}
	for _, k := range s.skillSet() {
		for _, f := range k.allFiles() {
			files[k.root+"/"+f.path] = f.mime
		}
	}
	if _, isFile := files[uri]; isFile && s.f("skills-directory-lenient") {
		s.result(id, obj{"resources": []any{}})
		return
	}
	children := map[string]obj{}
	for f, mime := range files {
		rest, under := strings.CutPrefix(f, uri+"/")
		if !under {
			continue
		}
		head, _, deeper := strings.Cut(rest, "/")
		switch {
		case deeper && s.f("skills-directory-flat"):
			children[f] = obj{"uri": f, "name": path.Base(f), "mimeType": mime}
		case deeper:
			children[uri+"/"+head] = obj{"uri": uri + "/" + head, "name": head, "mimeType": "inode/directory"}
		default:
			children[f] = obj{"uri": f, "name": head, "mimeType": mime}
		}
	}
	if len(children) == 0 {
		s.fail(id, -32602, uri+" is not a directory resource")
		return
	}
	keys := make([]string, 0, len(children))
	for k := range children {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]any, 0, len(keys))
	for _, k := range keys {
		out = append(out, children[k])
	}
	s.result(id, obj{"resources": out})
}
