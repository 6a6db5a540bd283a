package spec_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/verdict"
	"github.com/wirecheck/wirecheck/schemas"
	"github.com/wirecheck/wirecheck/specs"
)

// yamlOnly is a file system of specs without their frozen forms.
type yamlOnly struct{ fs.FS }

func (y yamlOnly) Open(name string) (fs.File, error) {
	if strings.HasSuffix(name, ".frozen") {
		return nil, fs.ErrNotExist
	}
	return y.FS.Open(name)
}

func loader(fsys fs.FS) func(id string) (*spec.Protocol, error) {
	var load func(id string) (*spec.Protocol, error)
	load = func(id string) (*spec.Protocol, error) {
		return spec.Load(fsys, id+".yaml", schemas.FS, verdict.Checks, load)
	}
	return load
}

// Every embedded spec comes with its frozen form, made from its YAML of
// now by the types of now (WIRECHECK_FREEZE=1 writes them, as `make
// frozen` does), and loads from it as from its YAML.
var _ = Describe("a frozen spec", func() {
	files, err := fs.Glob(specs.FS, "*.yaml")
	if err != nil || len(files) == 0 {
		panic("no embedded specs")
	}
	for _, f := range files {
		It("is current and loads as its YAML does: "+f, func() {
			data, err := fs.ReadFile(specs.FS, f)
			Expect(err).NotTo(HaveOccurred())
			want, err := spec.Freeze("specs/"+f, data)
			Expect(err).NotTo(HaveOccurred())
			if os.Getenv("WIRECHECK_FREEZE") == "1" {
				Expect(os.WriteFile(filepath.Join("..", "..", "specs", spec.FrozenName(f)), want, 0o644)).To(Succeed())
				Skip("written")
			}
			got, err := fs.ReadFile(specs.FS, spec.FrozenName(f))
			Expect(err).NotTo(HaveOccurred(), "run `make frozen`")
			Expect(bytes.Equal(got, want)).To(BeTrue(), "specs/%s is not the frozen form of specs/%s of now: run `make frozen`", spec.FrozenName(f), f)

			id := strings.TrimSuffix(f, ".yaml")
			thawed, err := loader(specs.FS)(id)
			Expect(err).NotTo(HaveOccurred())
			parsed, err := loader(yamlOnly{specs.FS})(id)
			Expect(err).NotTo(HaveOccurred())
			if parsed.Base == "" {
				// (A profile's rules of its base are told apart by
				// their pointers, which two loads do not share.)
				Expect(reflect.DeepEqual(thawed, parsed)).To(BeTrue(), "the frozen spec differs from the YAML's")
			}
		})
	}

	It("is not taken for a YAML it was not made from: the YAML is read", func() {
		data, err := fs.ReadFile(specs.FS, "sonde-serve.yaml")
		Expect(err).NotTo(HaveOccurred())
		frozen, err := spec.Freeze("specs/sonde-serve.yaml", data)
		Expect(err).NotTo(HaveOccurred())
		p, err := spec.Load(fstest.MapFS{"sonde-serve.yaml": {Data: data}, "sonde-serve.frozen": {Data: frozen}}, "sonde-serve.yaml", schemas.FS, verdict.Checks, nil)
		Expect(err).NotTo(HaveOccurred())
		title := p.Title

		edited := bytes.Replace(data, []byte("title: "+title), []byte("title: "+title+" (edited)"), 1)
		Expect(edited).NotTo(Equal(data))
		p, err = spec.Load(fstest.MapFS{"sonde-serve.yaml": {Data: edited}, "sonde-serve.frozen": {Data: frozen}}, "sonde-serve.yaml", schemas.FS, verdict.Checks, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Title).To(Equal(title + " (edited)"))

		broken := bytes.Replace(data, []byte("title: "+title), []byte("titel: "+title), 1)
		_, err = spec.Load(fstest.MapFS{"sonde-serve.yaml": {Data: broken}, "sonde-serve.frozen": {Data: frozen}}, "sonde-serve.yaml", schemas.FS, verdict.Checks, nil)
		Expect(err).To(MatchError(MatchRegexp(`specs/sonde-serve.yaml:\d+: field titel not found`)))
	})
})
