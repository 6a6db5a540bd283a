package spec_test

import (
	"io/fs"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"

	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/verdict"
	"github.com/wirecheck/wirecheck/schemas"
	"github.com/wirecheck/wirecheck/specs"
)

// Parse takes the lines of list items from the parse that decodes the
// spec; they are the lines a parse of its own finds.
var _ = Describe("the lines of a spec's items", func() {
	var load func(id string) (*spec.Protocol, error)
	load = func(id string) (*spec.Protocol, error) {
		return spec.Load(specs.FS, id+".yaml", schemas.FS, verdict.Checks, load)
	}
	files, err := fs.Glob(specs.FS, "*.yaml")
	if err != nil || len(files) == 0 {
		panic("no embedded specs")
	}
	for _, f := range files {
		It("are those of a parse of their own in "+f, func() {
			data, err := fs.ReadFile(specs.FS, f)
			Expect(err).NotTo(HaveOccurred())
			p, err := load(strings.TrimSuffix(f, ".yaml"))
			Expect(err).NotTo(HaveOccurred())
			lines := spec.ListLines(data)
			var got []int
			// A profile's rules follow its base's; its kinds and
			// documents come first.
			for _, r := range p.Rules[len(p.Rules)-len(lines["rules"]):] {
				got = append(got, r.Line)
			}
			Expect(got).To(Equal(lines["rules"]))
			// Kinds of other revisions than the default are left out.
			for _, k := range p.Kinds[:min(len(p.Kinds), len(lines["kinds"]))] {
				Expect(lines["kinds"]).To(ContainElement(k.Line), k.Name)
			}
			got = nil
			for _, d := range p.Documents[:len(lines["documents"])] {
				got = append(got, d.Line)
			}
			Expect(got).To(Equal(lines["documents"]))
			got = nil
			for _, x := range p.Faults {
				got = append(got, x.Line)
			}
			Expect(got).To(Equal(lines["faults"]))
			got = nil
			for _, x := range p.Variants {
				got = append(got, x.Line)
			}
			Expect(got).To(Equal(lines["variants"]))

			var root yaml.Node
			Expect(yaml.Unmarshal(data, &root)).To(Succeed())
			follow := child(child(root.Content[0], "fuzz"), "follow")
			if follow == nil {
				return
			}
			got = nil
			for _, fl := range p.Fuzz.Follow {
				got = append(got, fl.Line)
			}
			var want []int
			for _, it := range follow.Content {
				want = append(want, it.Line)
			}
			Expect(got).To(Equal(want))
			Expect(want).NotTo(BeEmpty())
		})
	}
})

func child(n *yaml.Node, key string) *yaml.Node {
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
