// Package schema compiles a protocol's JSON Schemas once, at load, and
// validates decoded frames against them on the hot path.
package schema

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Base is the URL prefix under which schema files are registered, so
// relative $refs between files of one protocol resolve.
const Base = "wirecheck:///schemas/"

// trustedBase is Base for Open's files. jsonschema/v6 checks every
// document it loads against its metaschema (for MCP's five revisions,
// half the cost of compiling them and a tenth of all a run allocates),
// except the documents under json-schema.org, its own metaschemas, and
// has no option to skip it otherwise. Open's files are the embedded ones,
// which the tests load with Compile, checked; every run checking them
// again proves nothing new. No file of ours has an $id, so the prefix
// names nothing but these files, and messages print neither.
const trustedBase = "https://json-schema.org/wirecheck/schemas/"

// Registry holds the compiled schemas of one folder of schemas/, or of a
// profile's folder over its base's.
type Registry struct {
	dir string
	// files maps every file added, relative to its folder, to its path
	// under schemas/: a profile's own file shadows its base's of that name.
	files map[string]string

	// Files and fragments ("file.json#/definitions/X") are compiled on
	// first use with the compiler that holds every file, and cached: a run
	// judges one revision of a protocol, so it compiles only what that
	// revision's frames need.
	mu     sync.Mutex
	base   string // Base, or trustedBase for Open's
	c      *jsonschema.Compiler
	byFile map[string]*jsonschema.Schema
	byFrag map[string]*jsonschema.Schema
	// fsys and known let a compiler be made again once Settle dropped
	// the last (see compiler).
	fsys  fs.FS
	known map[string]bool
	// loaded is set once the compiler has read a file; pruned holds,
	// while Settle compiles, the documents its references reach (see
	// prune), which the loader gives in place of the files.
	loaded bool
	pruned map[string]any
}

// Compile registers every .json file under the folders in fsys and
// compiles each one. Errors name the file and, for JSON syntax errors, the
// line.
func Compile(fsys fs.FS, dirs ...string) (*Registry, error) {
	r, err := open(fsys, true, dirs...)
	if err != nil {
		return nil, err
	}
	for _, f := range r.Files() {
		if _, err := r.compile(f); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Open registers every .json file under the folders in fsys, and reads
// and compiles nothing until asked (Get): a file is read when a schema
// compiled needs it. It is Compile for schema files already proven to
// compile (the embedded ones, by the tests), where reading every revision
// of a large protocol at each start would cost more than the run (the
// five MCP revisions are 700 KB of JSON; a run judges one), and that
// checks no file against its metaschema (see trustedBase). The first
// folder is the registry's own; later ones (a profile's base's) fill in
// the names it lacks.
func Open(fsys fs.FS, dirs ...string) (*Registry, error) {
	return open(fsys, false, dirs...)
}

// open registers the files; eager reads and adds each one now, so a file
// that is no JSON is reported at once, else the compiler's loader reads
// them from fsys when a compile first refers to them.
func open(fsys fs.FS, eager bool, dirs ...string) (*Registry, error) {
	if len(dirs) == 0 {
		return nil, errors.New("schema.Open: no folder")
	}
	base := Base
	if !eager {
		base = trustedBase
	}
	known := map[string]bool{}
	r := &Registry{dir: dirs[0], files: map[string]string{}, base: base, byFile: map[string]*jsonschema.Schema{}, byFrag: map[string]*jsonschema.Schema{},
		fsys: fsys, known: known}
	c := r.compiler()
	for i, dir := range dirs {
		var files []string
		err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".json") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			// A profile's own folder is optional (its base's holds the
			// schemas it needs); the last folder, the protocol's own or
			// its base's, is not.
			if i < len(dirs)-1 && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, fmt.Errorf("schemas/%s: %w", dir, err)
		}
		sort.Strings(files)
		for _, f := range files {
			known[f] = true
			if eager {
				doc, err := readDoc(fsys, f)
				if err != nil {
					return nil, err
				}
				if err := c.AddResource(base+f, doc); err != nil {
					return nil, fmt.Errorf("schemas/%s: %v", f, err)
				}
			}
			if rel := strings.TrimPrefix(f, dir+"/"); r.files[rel] == "" {
				r.files[rel] = f
			}
		}
	}
	return r, nil
}

// compiler is the registry's compiler, made when there is none (at open,
// and after Settle): it reads a file the first time a compile needs it.
// r.mu is held, or the registry is not shared yet.
func (r *Registry) compiler() *jsonschema.Compiler {
	if r.c != nil {
		return r.c
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// The formats a schema names are part of its contract (MCP's blob
	// "MUST be properly encoded", and its schema says so with "byte").
	c.AssertFormat()
	c.RegisterFormat(byteFormat)
	// Never fetch anything from the network or disk: every $ref must
	// resolve to a file of these folders.
	c.UseLoader(fsLoader{r: r})
	r.c = c
	r.loaded = false
	return c
}

// Settle compiles the schemas refs name (as Get takes them) and then lets
// the compiler go, and with it the decoded documents it holds to resolve
// later compiles: for MCP's five revisions some megabytes, beside a
// compiled form a third of that, live for the whole of a run that needs
// nothing else. A later Get of another schema makes a compiler again,
// which reads the files it needs anew. Refs that do not compile are left
// to Get and Check to report.
//
// A compiler that has read no file yet is given only what refs reach of
// each file (see prune): the library walks every subschema of a
// document it loads, referenced or not, and that walk was most of what
// compiling a revision of a large protocol cost.
func (r *Registry) Settle(refs []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.base == trustedBase && (r.c == nil || !r.loaded) {
		r.pruned = r.prune(refs)
	}
	for _, ref := range refs {
		r.getLocked(ref)
	}
	r.c, r.pruned = nil, nil
}

// readDoc reads one schema file as the compiler takes it.
func readDoc(fsys fs.FS, f string) (any, error) {
	data, err := fs.ReadFile(fsys, f)
	if err != nil {
		return nil, fmt.Errorf("schemas/%s: %w", f, err)
	}
	// Decode builds what jsonschema.UnmarshalJSON builds (numbers as
	// json.Number), in one pass, and fails with its errors.
	doc, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("schemas/%s:%s", f, jsonError(data, err))
	}
	return doc, nil
}

// compile compiles one whole file (relative to the folder), once.
func (r *Registry) compile(file string) (*jsonschema.Schema, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.compileLocked(file)
}

func (r *Registry) compileLocked(file string) (*jsonschema.Schema, error) {
	if s := r.byFile[file]; s != nil {
		return s, nil
	}
	s, err := r.compiler().Compile(r.base + r.files[file])
	if err != nil {
		return nil, fmt.Errorf("schemas/%s: %s", r.files[file], strings.ReplaceAll(err.Error(), r.base, "schemas/"))
	}
	r.byFile[file] = s
	return s, nil
}

// Get returns the compiled schema of a file relative to the registry's
// folder, e.g. "ready.json", or a fragment of one, "defs.json#/$defs/tool"
// (compiled on first use, then cached). It returns nil when there is no
// such file or fragment.
func (r *Registry) Get(file string) *jsonschema.Schema {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.getLocked(file)
}

func (r *Registry) getLocked(file string) *jsonschema.Schema {
	f, frag, isFrag := strings.Cut(file, "#")
	if r.files[f] == "" {
		return nil
	}
	if !isFrag {
		s, _ := r.compileLocked(f)
		return s
	}
	if s, ok := r.byFrag[file]; ok {
		return s
	}
	s, err := r.compiler().Compile(r.base + r.files[f] + "#" + frag)
	if err != nil {
		s = nil
	}
	r.byFrag[file] = s
	return s
}

// Check reports what is wrong with a schema reference ("" when it
// compiles), for load-time checks of specs.
func (r *Registry) Check(file string) string {
	if r.Get(file) != nil {
		return ""
	}
	f, frag, isFrag := strings.Cut(file, "#")
	if r.files[f] == "" {
		return fmt.Sprintf("schema %q not found in schemas/%s/", f, r.dir)
	}
	if !isFrag {
		if _, err := r.compile(f); err != nil {
			return err.Error()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.compiler().Compile(r.base + r.files[f] + "#" + frag); err != nil {
		return fmt.Sprintf("schema %q: %s", file, strings.ReplaceAll(err.Error(), r.base, "schemas/"))
	}
	return fmt.Sprintf("schema %q does not compile", file)
}

// Files lists the schema files, sorted.
func (r *Registry) Files() []string {
	out := make([]string, 0, len(r.files))
	for f := range r.files {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Explain turns a validation error into one line per failed keyword,
// without the long schema URLs.
func Explain(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var lines []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			at := "/" + strings.Join(e.InstanceLocation, "/")
			lines = append(lines, fmt.Sprintf("at %s: %s", at, e.ErrorKind.LocalizedString(english)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(lines) > 8 {
		lines = append(lines[:8], fmt.Sprintf("… and %d more", len(lines)-8))
	}
	return strings.Join(lines, "; ")
}

// english renders validation errors in words ("got number, want string").
var english = message.NewPrinter(language.English)

// byteFormat is OpenAPI's "byte": base64 (RFC 4648 §4), the format the
// official MCP schemas give blob and data. jsonschema/v6 does not know it
// and would pass any string. The standard alphabet only, with or without
// the padding (a decoder that needs it can add it; a character outside the
// alphabet, whitespace included, cannot be read back).
var byteFormat = &jsonschema.Format{Name: "byte", Validate: func(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	if _, err := base64.StdEncoding.DecodeString(s); err == nil {
		return nil
	}
	if _, err := base64.RawStdEncoding.DecodeString(s); err == nil {
		return nil
	}
	return jsonschema.LocalizableError("not base64 (RFC 4648 §4, the standard alphabet)")
}}

// fsLoader gives the compiler the registered files it refers to, read
// when first needed (or as Settle pruned them), and refuses every other
// URL. It runs inside a compile, under r.mu.
type fsLoader struct{ r *Registry }

func (l fsLoader) Load(url string) (any, error) {
	r := l.r
	f, ok := strings.CutPrefix(url, r.base)
	if !ok || !r.known[f] {
		return nil, fmt.Errorf("$ref to %s: only files under schemas/ can be referenced", strings.TrimPrefix(url, r.base))
	}
	r.loaded = true
	if doc, ok := r.pruned[f]; ok {
		return doc, nil
	}
	return readDoc(r.fsys, f)
}

// jsonError locates a JSON syntax error by line.
func jsonError(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return " invalid JSON: " + err.Error()
	}
	line := 1 + bytes.Count(data[:min(int(off), len(data))], []byte{'\n'})
	return fmt.Sprintf("%d: invalid JSON: %s", line, err)
}

// Path is where a file of the registry lives, for messages.
func (r *Registry) Path(file string) string {
	f, frag, isFrag := strings.Cut(file, "#")
	p := r.files[f]
	if p == "" {
		p = path.Join(r.dir, f)
	}
	if isFrag {
		p += "#" + frag
	}
	return "schemas/" + p
}
