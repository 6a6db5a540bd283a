// Package schema compiles a protocol's JSON Schemas once, at load, and
// validates decoded frames against them on the hot path.
package schema

import (
	"bytes"
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

// Base is the URL prefix under which embedded schema files are registered,
// so relative $refs between files of one protocol resolve.
const Base = "wirecheck:///schemas/"

// Registry holds the compiled schemas of one folder of schemas/.
type Registry struct {
	dir    string
	byFile map[string]*jsonschema.Schema

	// Fragments ("file.json#/definitions/X") are compiled on first use
	// with the compiler that holds every file, and cached.
	mu     sync.Mutex
	c      *jsonschema.Compiler
	byFrag map[string]*jsonschema.Schema
}

// Compile registers every .json file under dir in fsys and compiles each
// one. Errors name the file and, for JSON syntax errors, the line.
func Compile(fsys fs.FS, dir string) (*Registry, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	// Never fetch anything from the network or disk: every $ref must resolve
	// to an embedded file.
	c.UseLoader(noLoader{})
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
		return nil, fmt.Errorf("schemas/%s: %w", dir, err)
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, fmt.Errorf("schemas/%s: %w", f, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("schemas/%s:%s", f, jsonError(data, err))
		}
		if err := c.AddResource(Base+f, doc); err != nil {
			return nil, fmt.Errorf("schemas/%s: %v", f, err)
		}
	}
	r := &Registry{dir: dir, byFile: map[string]*jsonschema.Schema{}, c: c, byFrag: map[string]*jsonschema.Schema{}}
	for _, f := range files {
		s, err := c.Compile(Base + f)
		if err != nil {
			return nil, fmt.Errorf("schemas/%s: %s", f, strings.ReplaceAll(err.Error(), Base, "schemas/"))
		}
		r.byFile[strings.TrimPrefix(f, dir+"/")] = s
	}
	return r, nil
}

// Get returns the compiled schema of a file relative to the registry's
// folder, e.g. "ready.json", or a fragment of one, "defs.json#/$defs/tool"
// (compiled on first use, then cached). It returns nil when there is no
// such file or fragment.
func (r *Registry) Get(file string) *jsonschema.Schema {
	if s := r.byFile[file]; s != nil {
		return s
	}
	f, frag, ok := strings.Cut(file, "#")
	if !ok || r.byFile[f] == nil || r.c == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.byFrag[file]; ok {
		return s
	}
	s, err := r.c.Compile(Base + path.Join(r.dir, f) + "#" + frag)
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
	f, frag, ok := strings.Cut(file, "#")
	if _, has := r.byFile[f]; !has {
		return fmt.Sprintf("schema %q not found in schemas/%s/", f, r.dir)
	}
	if ok && r.c != nil {
		if _, err := r.c.Compile(Base + path.Join(r.dir, f) + "#" + frag); err != nil {
			return fmt.Sprintf("schema %q: %s", file, strings.ReplaceAll(err.Error(), Base, "schemas/"))
		}
	}
	return fmt.Sprintf("schema %q does not compile", file)
}

// Files lists the compiled files, sorted.
func (r *Registry) Files() []string {
	out := make([]string, 0, len(r.byFile))
	for f := range r.byFile {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Decode parses one frame the way the validator wants it (numbers as
// json.Number, so large integers keep their precision), and rejects
// anything after the first value.
func Decode(raw []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
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

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("$ref to %s: only files under schemas/ can be referenced", strings.TrimPrefix(url, Base))
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

// Path joins the registry folder and a file, for messages.
func (r *Registry) Path(file string) string { return path.Join("schemas", r.dir, file) }
