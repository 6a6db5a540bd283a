package gen

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// mcpDir is the reference MCP schemas relative to this package; specs that
// need it skip when the checkout does not have it.
const mcpDir = "../../../shared/reference/mcp"

type corpusEntry struct {
	name   string
	schema *jsonschema.Schema
}

// handCorpus compiles every testdata/*.json with Compile, the same path
// schemas received from servers take.
func handCorpus() ([]corpusEntry, error) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil {
		return nil, err
	}
	var out []corpusEntry
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		s, err := Compile(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, corpusEntry{filepath.Base(f), s})
	}
	return out, nil
}

// mcpCorpus compiles every definition of every MCP schema version, one
// compiler per version so definitions share their compiled $ref targets
// as they would in a validator. No definition is left out: none is
// unsatisfiable or impractical (JSONValue, which accepts everything, is only
// excluded from the Invalid property, see mcpAcceptsEverything).
func mcpCorpus() ([]corpusEntry, error) {
	versions, err := filepath.Glob(filepath.Join(mcpDir, "*", "schema.json"))
	if err != nil || len(versions) == 0 {
		return nil, err
	}
	var out []corpusEntry
	for _, file := range versions {
		version := filepath.Base(filepath.Dir(file))
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		top := doc.(map[string]any)
		key := "$defs"
		if _, ok := top["definitions"]; ok {
			key = "definitions"
		}
		defs := top[key].(map[string]any)
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		url := "mem://mcp/" + version + "/schema.json"
		if err := c.AddResource(url, doc); err != nil {
			return nil, err
		}
		names := make([]string, 0, len(defs))
		for name := range defs {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			id := version + "/" + name
			s, err := c.Compile(url + "#/" + key + "/" + name)
			if err != nil {
				return nil, err
			}
			out = append(out, corpusEntry{id, s})
		}
	}
	return out, nil
}

func names(es []corpusEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.name
	}
	return out
}
