package spec

import (
	"io/fs"
	"reflect"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/specs"
)

var _ = Describe("thawing a frozen spec", func() {
	It("gives what its YAML decodes to, for every embedded spec", func() {
		files, err := fs.Glob(specs.FS, "*.yaml")
		Expect(err).NotTo(HaveOccurred())
		Expect(files).NotTo(BeEmpty())
		for _, f := range files {
			data, err := fs.ReadFile(specs.FS, f)
			Expect(err).NotTo(HaveOccurred())
			frozen, err := fs.ReadFile(specs.FS, FrozenName(f))
			Expect(err).NotTo(HaveOccurred())
			thawed := thaw(frozen, data)
			Expect(thawed).NotTo(BeNil(), f)
			parsed, err := decodeYAML("specs/"+f, data)
			Expect(err).NotTo(HaveOccurred())
			Expect(reflect.DeepEqual(thawed, parsed)).To(BeTrue(), f)
		}
	})

	It("keeps nil apart from empty, and a pointer to false from none", func() {
		data := []byte("id: x\nkinds:\n  - {name: k, when: [{path: /a, present: false}, {path: /b}], versions: []}\nprobe: {}\n")
		frozen, err := Freeze("x.yaml", data)
		Expect(err).NotTo(HaveOccurred())
		p := thaw(frozen, data)
		Expect(p).NotTo(BeNil())
		Expect(p.Kinds[0].When[0].Present).To(HaveValue(BeFalse()))
		Expect(p.Kinds[0].When[1].Present).To(BeNil())
		Expect(p.Kinds[0].Versions).NotTo(BeNil())
		Expect(p.Kinds[0].Versions).To(BeEmpty())
		Expect(p.Probe).NotTo(BeNil())
		Expect(p.Rules).To(BeNil())
	})
})
