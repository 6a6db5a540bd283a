package gen

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaURL names the in-memory document. A hierarchical URL is used so that
// relative $refs resolve to something the loader can refuse with a clear
// message instead of to a path on the local disk.
const schemaURL = "mem://wirecheck/schema.json"

// ErrExternalRef is wrapped by Compile's error when the schema refers to a
// document other than itself.
var ErrExternalRef = errors.New("external $ref not supported")

// refuseLoader stops schemas received from a peer from making the compiler
// read local files (the library's default loader) or fetch URLs.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%w: %s", ErrExternalRef, url)
}

// Compile compiles one standalone schema document, as a server sends a
// tool's inputSchema. Without "$schema" the document is read as draft
// 2020-12, the dialect MCP specifies for tool schemas. Format assertions are
// enabled so that format is both checked and visible to the generators (a
// 2020-12 compiler otherwise drops it). References may only point inside
// the document; anything else fails with ErrExternalRef.
//
// The same document compiles to the same schema, returned again: a run
// meets one server's tool schemas again in every scenario and revision
// that lists its tools (against server-everything the same dozen some
// hundred times), and a compile, its metaschema check included, costs
// far more than the lookup. A compiled schema is never written once
// compiled, so callers may share it.
func Compile(raw []byte) (*jsonschema.Schema, error) {
	compiled.Lock()
	c, ok := compiled.m[string(raw)]
	compiled.Unlock()
	if ok {
		return c.s, c.err
	}
	s, err := compile(raw)
	compiled.Lock()
	defer compiled.Unlock()
	if compiled.bytes+len(raw) > maxCompiledBytes {
		// A server (or the fuzzer) that keeps sending new schemas: begin
		// again rather than keep them all.
		compiled.m, compiled.bytes = nil, 0
	}
	if compiled.m == nil {
		compiled.m = map[string]compileResult{}
	}
	if _, ok := compiled.m[string(raw)]; !ok {
		compiled.m[string(raw)] = compileResult{s, err}
		compiled.bytes += len(raw)
	}
	return s, err
}

// maxCompiledBytes bounds the documents Compile remembers, by their size:
// a server's tool schemas are a few KiB.
const maxCompiledBytes = 256 << 10

type compileResult struct {
	s   *jsonschema.Schema
	err error
}

var compiled struct {
	sync.Mutex
	m     map[string]compileResult
	bytes int
}

func compile(raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("gen: schema is not valid JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	s, err := c.Compile(schemaURL)
	if err != nil {
		// LoadURLError does not unwrap, so surface the refusal explicitly
		// for callers testing errors.Is(err, ErrExternalRef).
		var le *jsonschema.LoadURLError
		if errors.As(err, &le) && errors.Is(le.Err, ErrExternalRef) {
			return nil, fmt.Errorf("gen: %w: %s", ErrExternalRef, le.URL)
		}
		return nil, fmt.Errorf("gen: invalid schema: %w", err)
	}
	return s, nil
}
