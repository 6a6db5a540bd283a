package schema_test

import (
	"encoding/json"
	"io/fs"
	"sort"
	"strings"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/schemas"
)

// Settle gives a fresh compiler only what its references reach of each
// file; what it compiles is what the whole files compile to.
var _ = Describe("Settle's pruned documents", func() {
	It("leave out what no reference reaches", func() {
		// Two members claim one $id: the library refuses the file when
		// it walks it whole, not when b is left out.
		fsys := fstest.MapFS{"p/d.json": {Data: []byte(`{"$defs": {
			"a": {"type": "object", "properties": {"x": {"$ref": "#/$defs/c"}}},
			"b": {"$defs": {"one": {"$id": "https://example.com/same"}, "two": {"$id": "https://example.com/same"}}},
			"c": {"type": "integer"}}}`)}}
		reg, err := schema.Open(fsys, "p")
		Expect(err).NotTo(HaveOccurred())
		reg.Get("d.json#/$defs/c") // a compiler that has read the file whole is not pruned
		Expect(reg.Get("d.json#/$defs/a")).To(BeNil())

		reg, err = schema.Open(fsys, "p")
		Expect(err).NotTo(HaveOccurred())
		reg.Settle([]string{"d.json#/$defs/a"})
		a := reg.Get("d.json#/$defs/a")
		Expect(a).NotTo(BeNil())
		Expect(a.Validate(map[string]any{"x": json.Number("1")})).To(Succeed())
		Expect(a.Validate(map[string]any{"x": "1"})).NotTo(Succeed(), "c, reached through a, is kept")
	})

	It("follow references into other files", func() {
		fsys := fstest.MapFS{
			"p/a.json":     {Data: []byte(`{"$ref": "sub/b.json#/definitions/x"}`)},
			"p/sub/b.json": {Data: []byte(`{"definitions": {"x": {"$ref": "#/definitions/y"}, "y": {"type": "string"}, "z": {"type": "null"}}}`)},
		}
		reg, err := schema.Open(fsys, "p")
		Expect(err).NotTo(HaveOccurred())
		reg.Settle([]string{"a.json", "sub/b.json#/definitions/z"})
		a := reg.Get("a.json")
		Expect(a).NotTo(BeNil())
		Expect(a.Validate("s")).To(Succeed())
		Expect(a.Validate(json.Number("1"))).NotTo(Succeed())
	})

	// Every member of every embedded file, settled alone (so pruned
	// hardest), compiles and judges a few values as the whole files do.
	values := []any{nil, true, "x", json.Number("1"), []any{}, map[string]any{},
		map[string]any{"jsonrpc": "2.0", "id": json.Number("1"), "result": map[string]any{}},
		map[string]any{"jsonrpc": "2.0", "id": json.Number("1"), "error": map[string]any{"code": json.Number("-32601"), "message": "m"}},
		map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": "info", "data": "d"}},
		map[string]any{"type": "text", "text": "t"}}
	dirs, err := fs.ReadDir(schemas.FS, ".")
	if err != nil {
		panic(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := d.Name()
		It("compile as the whole files do: schemas/"+dir, func() {
			whole, err := schema.Compile(schemas.FS, dir)
			Expect(err).NotTo(HaveOccurred())
			for _, f := range whole.Files() {
				data, err := fs.ReadFile(schemas.FS, dir+"/"+f)
				Expect(err).NotTo(HaveOccurred())
				doc, err := schema.Decode(data)
				Expect(err).NotTo(HaveOccurred())
				refs := []string{f}
				top, _ := doc.(map[string]any)
				for _, c := range []string{"definitions", "$defs"} {
					ms, _ := top[c].(map[string]any)
					for n := range ms {
						if !strings.ContainsAny(n, "/~%") {
							refs = append(refs, f+"#/"+c+"/"+n)
						}
					}
				}
				sort.Strings(refs)
				for _, ref := range refs {
					reg, err := schema.Open(schemas.FS, dir)
					Expect(err).NotTo(HaveOccurred())
					reg.Settle([]string{ref})
					got, want := reg.Get(ref), whole.Get(ref)
					Expect(want).NotTo(BeNil(), ref)
					Expect(got).NotTo(BeNil(), ref)
					for _, v := range values {
						g, w := got.Validate(v), want.Validate(v)
						Expect(g == nil).To(Equal(w == nil), "%s on %v", ref, v)
						if w != nil && !strings.Contains(schema.Explain(w), "… and") {
							Expect(lines(schema.Explain(g))).To(ConsistOf(lines(schema.Explain(w))), ref)
						}
					}
				}
			}
		})
	}
})

// lines are the lines of an explanation, each with its words sorted:
// the library lists properties in the order of a Go map too.
func lines(explained string) []string {
	out := strings.Split(explained, "; ")
	for i, l := range out {
		w := strings.Fields(strings.ReplaceAll(l, ",", ""))
		sort.Strings(w)
		out[i] = strings.Join(w, " ")
	}
	return out
}
