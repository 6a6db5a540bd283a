package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Error is a problem in a spec or fixture file, located by file and line.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// Errors is several problems found in one pass, so a spec author sees them
// all at once rather than one per run.
type Errors []*Error

func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// DecodeStrict decodes YAML into v, rejecting unknown fields, and turns the
// YAML library's messages into file:line errors.
func DecodeStrict(file string, data []byte, v any) error {
	_, err := decodeStrict(file, data, v)
	return err
}

// decodeStrict is DecodeStrict that also returns, from the same parse,
// the node of each top-level key's value, for the lines of list items
// (setLines): parsing the spec a second time for them was some 40% of
// what loading the largest spec cost, at every run.
func decodeStrict(file string, data []byte, v any) (map[string]yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	doc := &withTop{v: v}
	err := dec.Decode(doc)
	if err == nil {
		return doc.top, nil
	}
	if errors.Is(err, io.EOF) {
		return nil, &Error{File: file, Msg: "file is empty"}
	}
	var te *yaml.TypeError
	var out Errors
	if errors.As(err, &te) {
		for _, m := range te.Errors {
			out = append(out, yamlError(file, m))
		}
		return nil, out
	}
	return nil, yamlError(file, err.Error())
}

// withTop decodes a document into v, and its top-level mapping into top
// as nodes. It is an obsolete-style unmarshaler on purpose: the function
// that kind is handed decodes with the decoder's own settings (unknown
// fields refused), where a yaml.Node's Decode would not; the errors it
// returns are the decoder's own, unchanged.
type withTop struct {
	v   any
	top map[string]yaml.Node
}

func (w *withTop) UnmarshalYAML(unmarshal func(any) error) error {
	if err := unmarshal(w.v); err != nil {
		return err
	}
	// What v took, a map of nodes takes too; should it not, the lines
	// are left unset rather than the document refused.
	var top map[string]yaml.Node
	if unmarshal(&top) == nil {
		w.top = top
	}
	return nil
}

var goType = regexp.MustCompile(` in type [\w.*\[\]]+`)

func yamlError(file, msg string) *Error {
	// "field x not found in type spec.Rule": the Go type means nothing to
	// the author of the file.
	msg = goType.ReplaceAllString(msg, "")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &Error{File: file, Line: n, Msg: m[2]}
	}
	return &Error{File: file, Msg: strings.TrimPrefix(msg, "yaml: ")}
}

// Lines finds the line of list items in a YAML document, so semantic errors
// can point at the item they are about. Lines(data, "rules") returns the line
// of each item of the top-level "rules" list.
func Lines(data []byte, key string) []int {
	return ListLines(data)[key]
}

// ListLines is Lines for every top-level list of the document, from one
// parse: a spec has five lists, and parsing it once per list was most of
// what `wirecheck serve` spends starting up, after package initialisation.
func ListLines(data []byte) map[string][]int {
	return listLines(parseNode(data))
}

// parseNode is the document's top node, nil when it has none.
func parseNode(data []byte) *yaml.Node {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 {
		return nil
	}
	return root.Content[0]
}

func listLines(m *yaml.Node) map[string][]int {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	out := map[string][]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		var ls []int
		for _, it := range m.Content[i+1].Content {
			ls = append(ls, it.Line)
		}
		out[m.Content[i].Value] = ls
	}
	return out
}

// Checks is the set of built-in check names a spec may refer to.
type Checks map[string]bool

var ruleID = regexp.MustCompile(`^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$`)

// Load reads specs/<file> from fsys, checks it against itself, schemaFS and
// the known checks, and returns the protocol. base resolves `base:` profiles.
func Load(fsys fs.FS, file string, schemaFS fs.FS, known Checks, base func(id string) (*Protocol, error)) (*Protocol, error) {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, &Error{File: "specs/" + file, Msg: err.Error()}
	}
	var p *Protocol
	if f, err := fs.ReadFile(fsys, FrozenName(file)); err == nil {
		p = thaw(f, data)
	}
	return parse("specs/"+file, data, p, schemaFS, known, base)
}

// Parse is Load on bytes already read; name is used in messages.
func Parse(name string, data []byte, schemaFS fs.FS, known Checks, base func(id string) (*Protocol, error)) (*Protocol, error) {
	return parse(name, data, nil, schemaFS, known, base)
}

// decodeYAML decodes a spec's YAML, with the lines of its items.
func decodeYAML(name string, data []byte) (*Protocol, error) {
	p := &Protocol{}
	top, err := decodeStrict(name, data, p)
	if err != nil {
		return nil, err
	}
	setLines(p, top)
	return p, nil
}

// parse is Parse of the spec data decodes to, p when it is given (thawed).
func parse(name string, data []byte, p *Protocol, schemaFS fs.FS, known Checks, base func(id string) (*Protocol, error)) (*Protocol, error) {
	if p == nil {
		var err error
		if p, err = decodeYAML(name, data); err != nil {
			return nil, err
		}
	}
	p.File = name
	ownDocs := len(p.Documents) > 0
	var errs Errors
	bad := func(line int, format string, args ...any) {
		errs = append(errs, &Error{File: name, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	if p.ID == "" {
		bad(1, "missing id")
	}
	if p.Source == "" && p.Base == "" {
		bad(1, "missing source: cite the document the rules come from")
	}
	p.schemaDirs = []string{p.ID}
	if p.Schemas != "" {
		p.schemaDirs = []string{p.Schemas}
	}
	if p.Base != "" {
		if base == nil {
			bad(1, "base %q: profiles cannot be resolved here", p.Base)
		} else if b, err := base(p.Base); err != nil {
			bad(1, "base %q: %v", p.Base, err)
		} else {
			if b.template != nil {
				// A versioned base: the profile takes its templates and
				// is resolved per version like it.
				b = b.template
			}
			if p.Versions == nil {
				p.Versions = b.Versions
			}
			p.schemaDirs = append(p.schemaDirs, b.schemaDirs...)
			p.inherited = map[*Rule]bool{}
			for _, r := range b.Rules {
				p.inherited[r] = true
			}
			// Own kinds first so a profile can refine the base's classification.
			p.Kinds = append(p.Kinds, b.Kinds...)
			p.Rules = append(append([]*Rule{}, b.Rules...), p.Rules...)
			// Faults and variants stay the profile's own: they name what its
			// reference server does, and the base's belong to the base's
			// server.
			if p.Correlation == (Correlation{}) {
				p.Correlation = b.Correlation
			}
			if p.Startup == nil {
				p.Startup = b.Startup
			}
			if p.Probe == nil {
				p.Probe = b.Probe
			}
			if p.Fuzz == nil {
				p.Fuzz = b.Fuzz
			}
			if len(p.Transports) == 0 {
				p.Transports = b.Transports
			}
			if len(p.Endpoints) == 0 {
				p.Endpoints = b.Endpoints
			}
			if p.Unimplemented == nil {
				p.Unimplemented = b.Unimplemented
			}
			for _, d := range b.Documents {
				if p.Document(d.Name) == nil {
					p.Documents = append(p.Documents, d)
				}
			}
		}
	}

	if len(p.Transports) == 0 {
		p.Transports = defaultTransports
	}
	p.checkDocuments(ownDocs, bad)
	p.checkTransports(bad)
	p.checkProfile(bad)
	p.rules = map[string]*Rule{}
	p.checks = map[string][]*Rule{}
	for _, r := range p.Rules {
		switch {
		case !ruleID.MatchString(r.ID):
			bad(r.Line, "rule id %q: want upper-case words joined by '-', e.g. SONDE-STARTUP-1", r.ID)
		case p.rules[r.ID] != nil:
			bad(r.Line, "rule %s is defined twice (first at line %d)", r.ID, p.rules[r.ID].Line)
		}
		p.rules[r.ID] = r
		if r.Level.Rank() == 0 {
			bad(r.Line, "rule %s: level %q must be MUST, SHOULD or MAY", r.ID, r.Level)
		}
		if r.Title == "" {
			bad(r.Line, "rule %s: missing title", r.ID)
		}
		if r.Section == "" && r.Doc == "" {
			bad(r.Line, "rule %s: missing section: cite where the source document says it", r.ID)
		}
		for _, c := range r.Checks {
			if !known[c] {
				bad(r.Line, "rule %s: unknown check %q (known: %s)", r.ID, c, keys(known))
			}
			p.checks[c] = append(p.checks[c], r)
		}
		for _, v := range r.Versions {
			if p.Versions == nil || p.Versions.find(v) == nil {
				bad(r.Line, "rule %s: version %q is not in the spec's versions list", r.ID, v)
			}
		}
		for _, v := range slices.Sorted(maps.Keys(r.Sections)) {
			if p.Versions == nil || p.Versions.find(v) == nil {
				bad(r.Line, "rule %s: sections: version %q is not in the spec's versions list", r.ID, v)
			}
		}
		if r.Frames != nil {
			checkSchema(schemaFS, p.schemaDirs, r.Frames.Schema, func(m string) { bad(r.Line, "rule %s: %s", r.ID, m) })
			for i := range r.Frames.When {
				if m := r.Frames.When[i].compile(); m != "" {
					bad(r.Line, "rule %s: frames: %s", r.ID, m)
				}
			}
		}
	}

	for _, r := range p.Rules {
		for _, c := range r.ConsequenceOf {
			switch {
			case p.rules[c] == nil:
				bad(r.Line, "rule %s: consequence-of %s is not in the catalogue", r.ID, c)
			case c == r.ID:
				bad(r.Line, "rule %s: consequence-of names the rule itself", r.ID)
			case slices.Contains(p.rules[c].ConsequenceOf, r.ID):
				bad(r.Line, "rule %s: consequence-of %s, which is itself a consequence of %s: one of the two is the cause", r.ID, c, r.ID)
			}
		}
	}

	p.kinds = map[string]*Kind{}
	for _, k := range p.Kinds {
		if k.Name == "" {
			bad(k.Line, "kind without a name")
			continue
		}
		if p.kinds[k.Name] != nil && k.Line != 0 {
			bad(k.Line, "kind %q is defined twice", k.Name)
		}
		if p.kinds[k.Name] == nil {
			p.kinds[k.Name] = k
		}
		switch k.Role {
		case RoleReady, RoleResponse, RoleEvent, RoleRequest, RoleNotification, RoleRequestOut:
		default:
			bad(k.Line, "kind %q: role %q must be one of ready, response, event, request, notification, out", k.Name, k.Role)
		}
		checkSchema(schemaFS, p.schemaDirs, k.Schema, func(m string) { bad(k.Line, "kind %q: %s", k.Name, m) })
		if k.Invalid && k.Role != RoleResponse {
			bad(k.Line, "kind %q: an invalid kind (the answer to an invalid request) has role response", k.Name)
		}
		if k.At != "" && !strings.HasPrefix(k.At, "/") {
			bad(k.Line, "kind %q: at %q must be a JSON pointer starting with '/'", k.Name, k.At)
		}
		for _, v := range k.Versions {
			if p.Versions == nil || p.Versions.find(v) == nil {
				bad(k.Line, "kind %q: version %q is not in the spec's versions list", k.Name, v)
			}
		}
		if k.Rule != "" && p.rules[k.Rule] == nil {
			bad(k.Line, "kind %q: rule %s is not in the catalogue", k.Name, k.Rule)
		}
		for i := range k.When {
			if m := k.When[i].compile(); m != "" {
				bad(k.Line, "kind %q: %s", k.Name, m)
			}
		}
	}
	if p.Startup != nil {
		if k := p.kinds[p.Startup.Kind]; k == nil || k.Role != RoleReady {
			bad(1, "startup kind %q is not a kind with role ready", p.Startup.Kind)
		}
		if p.rules[p.Startup.Rule] == nil {
			bad(1, "startup rule %q is not in the catalogue", p.Startup.Rule)
		}
	}
	for n, alt := range p.Unimplemented {
		line := 0
		if n < len(p.unimplementedLines) {
			line = p.unimplementedLines[n]
		}
		if len(alt) == 0 {
			bad(line, "unimplemented: an alternative without conditions would match every answer")
		}
		for i := range alt {
			if m := alt[i].compile(); m != "" {
				bad(line, "unimplemented: %s", m)
			}
		}
	}
	if f := p.Fuzz; f != nil {
		if f.Request != "" {
			checkSchema(schemaFS, p.schemaDirs, f.Request, func(m string) { bad(1, "fuzz request: %s", m) })
		}
		checkSetup := func(where string, setup []map[string]any) {
			for i, st := range setup {
				if _, has := st["notify"]; has {
					if _, ok := SetupNotification(st); !ok {
						bad(1, "fuzz %ssetup step %d: notify takes a message (an object) and stands alone", where, i+1)
					}
				}
				if _, has := st["await"]; has {
					if _, ok := SetupAwait(st); !ok {
						bad(1, "fuzz %ssetup step %d: await takes the fields to match (an object) and stands alone", where, i+1)
					}
				}
			}
		}
		checkSetup("", f.Setup)
		for i, l := range f.Ignored {
			if strings.Contains(l, "\n") {
				bad(1, "fuzz ignored %d: a line, without its newline", i+1)
			}
		}
		for i, fr := range f.Frames {
			if fr == nil || len(fr.Frame) == 0 || fr.Label == "" {
				bad(1, "fuzz frames %d: a frame (an object) and its label are required", i+1)
			}
		}
		checkRequests := func(where string, rs []*FuzzRequest) {
			for i, r := range rs {
				switch {
				case r == nil || r.Schema == "":
					bad(1, "fuzz %srequests %d: schema is required", where, i+1)
				default:
					checkSchema(schemaFS, p.schemaDirs, r.Schema, func(m string) { bad(1, "fuzz %srequests %d: %s", where, i+1, m) })
				}
				if r == nil {
					continue
				}
				for _, w := range r.When {
					if !strings.HasPrefix(w, "/") {
						bad(1, "fuzz %srequests %d: when %q is not a JSON pointer", where, i+1, w)
					}
				}
			}
		}
		checkRequests("", f.Requests)
		checkFollow := func(fs []*FuzzFollow) {
			for i, fl := range fs {
				line := 1
				if fl != nil && fl.Line > 0 {
					line = fl.Line
				}
				for _, m := range fl.problems(f.Sources, p.rules) {
					bad(line, "fuzz follow %d: %s", i+1, m)
				}
			}
		}
		checkFollow(f.Follow)
		for name, src := range f.Sources {
			switch {
			case src == nil:
				bad(1, "fuzz source %q: list, items and name, or {} (items only follow-ups yield)", name)
			case src.List == nil && src.Items == "" && src.Name == "" && src.Next == nil:
				// Made, never listed: items only follow-ups yield.
			case src.List == nil || src.Items == "" || src.Name == "":
				bad(1, "fuzz source %q: list, items and name are all required (or none: items only follow-ups yield)", name)
			case !strings.HasPrefix(src.Items, "/") || !strings.HasPrefix(src.Name, "/"):
				bad(1, "fuzz source %q: items and name are JSON pointers", name)
			case src.Next != nil && (!strings.HasPrefix(src.Next.From, "/") || !strings.HasPrefix(src.Next.To, "/")):
				bad(1, "fuzz source %q next: from and to are JSON pointers (the cursor in a response, its place in the next request)", name)
			}
			for _, w := range src.When {
				if !strings.HasPrefix(w, "/") {
					bad(1, "fuzz source %q: when %q is not a JSON pointer", name, w)
				}
			}
		}
		for id, o := range f.PerVersion {
			switch {
			case p.Versions == nil:
				bad(1, "fuzz per_version %q: the spec declares no versions", id)
			case p.Versions.find(id) == nil:
				bad(1, "fuzz per_version %q: not in the spec's versions list (%s)", id, strings.Join(p.Versions.IDs(), ", "))
			case o == nil:
				bad(1, "fuzz per_version %q: give setup, params, follow or more", id)
			default:
				checkSetup("per_version "+id+" ", o.Setup)
				checkFollow(o.Follow)
				checkRequests("per_version "+id+" ", o.Requests)
				if v := p.Versions.find(id); v != nil {
					for i, r := range o.Requests {
						if r != nil && r.Schema != "" {
							f, _, _ := strings.Cut(v.Expand(r.Schema), "#")
							checkSchema(schemaFS, p.schemaDirs, f, func(m string) { bad(1, "fuzz per_version %s requests %d: %s", id, i+1, m) })
						}
					}
				}
			}
		}
		if t := f.Tools; t != nil && (t.List == nil || t.Call == nil || t.Items == "" || t.Name == "" || t.Schema == "") {
			bad(1, "fuzz tools: list, items, name, schema and call are all required")
		}
		if t := f.Tools; t != nil && t.Next != nil && (!strings.HasPrefix(t.Next.From, "/") || !strings.HasPrefix(t.Next.To, "/")) {
			bad(1, "fuzz tools next: from and to are JSON pointers (the cursor in a response, its place in the next request)")
		}
	}
	if p.Correlation.ID != "" && !strings.HasPrefix(p.Correlation.ID, "/") {
		bad(1, "correlation id %q must be a JSON pointer", p.Correlation.ID)
	}
	seen := map[string]bool{}
	for _, f := range p.Faults {
		if seen[f.Name] && f.Line != 0 {
			bad(f.Line, "fault %q is listed twice", f.Name)
		}
		seen[f.Name] = true
		if len(f.Trips) == 0 {
			bad(f.Line, "fault %q trips no rule", f.Name)
		}
		if f.Version != "" && (p.Versions == nil || p.Versions.find(f.Version) == nil) {
			bad(f.Line, "fault %q: version %q is not in the spec's versions list", f.Name, f.Version)
		}
		for _, id := range append(append([]string{}, f.Trips...), f.Also...) {
			if p.rules[id] == nil {
				bad(f.Line, "fault %q: rule %s is not in the catalogue", f.Name, id)
			}
		}
		if m := badTimeout(f.Timeout); m != "" {
			bad(f.Line, "fault %q: %s", f.Name, m)
		}
	}
	for _, v := range p.Variants {
		if v.Name == "" || v.Name == "list" {
			bad(v.Line, "a variant needs a name other than %q", v.Name)
		}
		if seen[v.Name] && v.Line != 0 {
			bad(v.Line, "variant %q is listed twice, or shares its name with a fault", v.Name)
		}
		seen[v.Name] = true
		if v.Does == "" {
			bad(v.Line, "variant %q: say what it does (does:)", v.Name)
		}
		if v.Version != "" && (p.Versions == nil || p.Versions.find(v.Version) == nil) {
			bad(v.Line, "variant %q: version %q is not in the spec's versions list", v.Name, v.Version)
		}
		if m := badTimeout(v.Timeout); m != "" {
			bad(v.Line, "variant %q: %s", v.Name, m)
		}
	}
	if v := p.Versions; v != nil {
		errs = append(errs, v.resolve(name)...)
		seenV := map[string]bool{}
		if v.Param == "" {
			bad(1, "versions: param is required (the --param key that picks a version)")
		}
		for _, x := range v.List {
			if x.ID == "" || seenV[x.ID] {
				bad(1, "versions: version ids must be present and unique (%q)", x.ID)
			}
			seenV[x.ID] = true
			files := map[string]bool{}
			for _, ref := range p.SchemaRefs() {
				f, _, _ := strings.Cut(x.Expand(ref), "#")
				if !files[f] {
					files[f] = true
					checkSchema(schemaFS, p.schemaDirs, f, func(m string) { bad(1, "version %s: %s", x.ID, m) })
				}
			}
		}
		if !seenV[v.Default] {
			bad(1, "versions: default %q is not in the list", v.Default)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	p.Transport = p.Transports[0]
	p.index()
	if p.Versions != nil {
		return p.ForVersion(p.Versions.Default)
	}
	return p, nil
}

func checkSchema(schemaFS fs.FS, dirs []string, file string, bad func(string)) {
	if file == "" {
		bad("missing schema")
		return
	}
	if schemaFS == nil || strings.Contains(file, "{") {
		// A template is checked once expanded for each version.
		return
	}
	file, _, _ = strings.Cut(file, "#")
	for _, d := range dirs {
		if _, err := fs.Stat(schemaFS, path.Join(d, file)); err == nil {
			return
		}
	}
	bad(fmt.Sprintf("schema %q not found in schemas/%s/", file, strings.Join(dirs, "/ or schemas/")))
}

func setLines(p *Protocol, top map[string]yaml.Node) {
	lines := map[string][]int{}
	for k, n := range top {
		if n.Kind == yaml.SequenceNode {
			for _, it := range n.Content {
				lines[k] = append(lines[k], it.Line)
			}
		}
	}
	for i, l := range lines["rules"] {
		if i < len(p.Rules) {
			p.Rules[i].Line = l
		}
	}
	for i, l := range lines["documents"] {
		if i < len(p.Documents) {
			p.Documents[i].Line = l
		}
	}
	for i, l := range lines["kinds"] {
		if i < len(p.Kinds) {
			p.Kinds[i].Line = l
		}
	}
	for i, l := range lines["faults"] {
		if i < len(p.Faults) {
			p.Faults[i].Line = l
		}
	}
	for i, l := range lines["variants"] {
		if i < len(p.Variants) {
			p.Variants[i].Line = l
		}
	}
	p.unimplementedLines = lines["unimplemented"]
	setFuzzLines(p, top)
}

// setFuzzLines gives the fuzz model's follow-up requests (common and per
// revision) the lines they are written on.
func setFuzzLines(p *Protocol, top map[string]yaml.Node) {
	fuzz, ok := top["fuzz"]
	if p.Fuzz == nil || !ok {
		return
	}
	child := func(n *yaml.Node, key string) *yaml.Node {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i+1]
			}
		}
		return nil
	}
	set := func(list *yaml.Node, fs []*FuzzFollow) {
		if list == nil {
			return
		}
		for i, it := range list.Content {
			if i < len(fs) && fs[i] != nil {
				fs[i].Line = it.Line
			}
		}
	}
	fz := &fuzz
	set(child(fz, "follow"), p.Fuzz.Follow)
	for id, o := range p.Fuzz.PerVersion {
		if o != nil {
			set(child(child(child(fz, "per_version"), id), "follow"), o.Follow)
		}
	}
}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// checkDocuments checks the documents: declaration (each named, titled,
// once, its sha256 a hash) and, when a spec declares documents of its own
// (own; a profile also has its base's), that it declares every document
// its rules cite, so no report names a document by its file alone.
func (p *Protocol) checkDocuments(own bool, bad func(line int, format string, args ...any)) {
	seen := map[string]bool{}
	for _, d := range p.Documents {
		switch {
		case d.Name == "":
			bad(d.Line, "documents: an entry without a name (how rules cite it: the source:, a rule's doc:)")
		case seen[d.Name]:
			bad(d.Line, "documents: %q is declared twice", d.Name)
		case strings.TrimSpace(d.Title) == "":
			bad(d.Line, "documents: %q has no title: name it as a reader knows it (\"the sonde-serve protocol document\")", d.Name)
		case d.SHA256 != "" && !sha256Hex.MatchString(d.SHA256):
			bad(d.Line, "documents: %q: sha256 %q is not 64 lower-case hex digits", d.Name, d.SHA256)
		}
		seen[d.Name] = true
	}
	if !own {
		return
	}
	if p.Source != "" && !seen[p.Source] {
		bad(1, "source %q is not declared in documents: give it a title", p.Source)
	}
	for _, r := range p.Rules {
		if r.Doc != "" && !seen[r.Doc] {
			bad(r.Line, "rule %s: doc %q is not declared in documents: give it a title", r.ID, r.Doc)
		}
	}
	if p.Versions != nil {
		for _, v := range p.Versions.List {
			if v.Doc != "" && !seen[v.Doc] {
				bad(1, "versions: %s: doc %q is not declared in documents: give it a title", v.ID, v.Doc)
			}
		}
	}
}

func keys(m Checks) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}
