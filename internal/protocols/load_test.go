package protocols_test

import (
	"fmt"
	"io/fs"
	"strings"
	"testing/fstest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/fixtures"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/verdict"
	"github.com/wirecheck/wirecheck/schemas"
	"github.com/wirecheck/wirecheck/specs"
)

var _ = Describe("the embedded protocols", func() {
	It("has a spec for every registered protocol and a registration for every spec", func() {
		files, err := fs.Glob(specs.FS, "*.yaml")
		Expect(err).NotTo(HaveOccurred())
		var ids []string
		for _, f := range files {
			ids = append(ids, strings.TrimSuffix(f, ".yaml"))
		}
		Expect(ids).To(ConsistOf(protocols.AllIDs()))
	})

	for _, id := range protocols.AllIDs() {
		Context(id, func() {
			var b *protocols.Bundle
			BeforeEach(func() {
				var err error
				b, err = protocols.Load(id)
				Expect(err).NotTo(HaveOccurred())
			})

			It("compiles every schema file and every schema reference of every revision (what Load leaves to first use)", func() {
				_, err := protocols.Verify(id)
				Expect(err).NotTo(HaveOccurred())
			})

			It("loads its spec, every schema and every fixture", func() {
				Expect(b.Protocol.Rules).NotTo(BeEmpty())
				Expect(b.Scenarios).NotTo(BeEmpty())
				Expect(b.Schemas.Files()).NotTo(BeEmpty())
				for _, k := range b.Protocol.Kinds {
					Expect(b.Schemas.Get(k.Schema)).NotTo(BeNil(), "kind %q schema %s", k.Name, k.Schema)
				}
			})

			It("decides every rule somewhere: a kind's schema, a built-in check, a frame schema or a scenario", func() {
				decided := map[string]bool{}
				for _, k := range b.Protocol.Kinds {
					decided[k.Rule] = true
				}
				if b.Protocol.Startup != nil {
					decided[b.Protocol.Startup.Rule] = true
				}
				for _, r := range b.Protocol.Rules {
					if len(r.Checks) > 0 || r.Frames != nil {
						decided[r.ID] = true
					}
				}
				for _, s := range b.Scenarios {
					for _, r := range s.Rules {
						decided[r] = true
					}
				}
				var none []string
				for _, r := range b.Protocol.Rules {
					if !decided[r.ID] && !undecided[r.ID] {
						none = append(none, r.ID)
					}
				}
				Expect(none).To(BeEmpty(), "rules decided by nothing")
			})

			It("has at least six variants, legal choices that pass its suite", func() {
				Expect(len(b.Protocol.Variants)).To(BeNumerically(">=", 6), "the variant table of %s", id)
			})

			It("has a fault for every MUST rule", func() {
				tripped := map[string]bool{}
				for _, f := range b.Protocol.Faults {
					for _, r := range f.Trips {
						tripped[r] = true
					}
				}
				for _, r := range b.Protocol.Rules {
					if r.Level == verdict.Must && !b.Protocol.Inherited(r) {
						Expect(tripped[r.ID]).To(BeTrue(), "MUST rule %s has no fault that trips it", r.ID)
					}
				}
			})
		})
	}
})

var _ = Describe("a broken spec or fixture", func() {
	load := func(files map[string]string) error {
		spec := fstest.MapFS{}
		fix := fstest.MapFS{}
		for name, body := range files {
			switch {
			case strings.HasPrefix(name, "specs/"):
				spec[strings.TrimPrefix(name, "specs/")] = &fstest.MapFile{Data: []byte(body)}
			case strings.HasPrefix(name, "fixtures/"):
				fix[strings.TrimPrefix(name, "fixtures/")] = &fstest.MapFile{Data: []byte(body)}
			}
		}
		if _, ok := spec["sonde-serve.yaml"]; !ok {
			data, _ := fs.ReadFile(specs.FS, "sonde-serve.yaml")
			spec["sonde-serve.yaml"] = &fstest.MapFile{Data: data}
		}
		_, err := protocols.LoadFrom("sonde-serve", spec, schemas.FS, fix)
		return err
	}
	goodSpec, _ := fs.ReadFile(specs.FS, "sonde-serve.yaml")
	goodFixture, _ := fs.ReadFile(fixtures.FS, "sonde-serve/tools-list.yaml")

	DescribeTable("is rejected with the file, the line and what is wrong",
		func(files map[string]string, want string) {
			err := load(files)
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(want))
		},
		Entry("unknown field in the spec",
			map[string]string{"specs/sonde-serve.yaml": strings.Replace(string(goodSpec), "title: JSON line", "titel: JSON line", 1)},
			fmt.Sprintf("specs/sonde-serve.yaml:%d: field titel not found", lineOf(string(goodSpec), "title: JSON line"))),
		Entry("YAML syntax error",
			map[string]string{"specs/sonde-serve.yaml": "id: sonde-serve\nrules: [\n"},
			"specs/sonde-serve.yaml:"),
		Entry("bad level",
			map[string]string{"specs/sonde-serve.yaml": strings.Replace(string(goodSpec), "level: MUST", "level: MUTS", 1)},
			`level "MUTS" must be MUST, SHOULD or MAY`),
		Entry("unknown check",
			map[string]string{"specs/sonde-serve.yaml": strings.Replace(string(goodSpec), "checks: [ndjson.json]", "checks: [ndjson.jsno]", 1)},
			`unknown check "ndjson.jsno"`),
		Entry("consequence of an unknown rule",
			map[string]string{"specs/sonde-serve.yaml": strings.Replace(string(goodSpec), "consequence-of: [SONDE-GEN-NON-OBJECT]", "consequence-of: [SONDE-GEN-NON-OBJEKT]", 1)},
			fmt.Sprintf("specs/sonde-serve.yaml:%d: rule SONDE-GEN-SURVIVE: consequence-of SONDE-GEN-NON-OBJEKT is not in the catalogue", lineOf(string(goodSpec), "- id: SONDE-GEN-SURVIVE"))),
		Entry("consequence of itself",
			map[string]string{"specs/sonde-serve.yaml": strings.Replace(string(goodSpec), "consequence-of: [SONDE-GEN-NON-OBJECT]", "consequence-of: [SONDE-GEN-SURVIVE]", 1)},
			"rule SONDE-GEN-SURVIVE: consequence-of names the rule itself"),
		Entry("missing schema file",
			map[string]string{"specs/sonde-serve.yaml": strings.Replace(string(goodSpec), "schema: ready.json", "schema: redy.json", 1)},
			`schema "redy.json" not found in schemas/sonde-serve/`),
		Entry("fault naming an unknown rule",
			map[string]string{"specs/sonde-serve.yaml": strings.Replace(string(goodSpec), "trips: [SONDE-EMPTY-1]", "trips: [SONDE-EMPTY-9]", 1)},
			`fault "answer-empty": rule SONDE-EMPTY-9 is not in the catalogue`),
		Entry("fuzz setup notification that is no message",
			map[string]string{"specs/sonde-serve.yaml": strings.Replace(string(goodSpec), "  request: request.json\n", "  request: request.json\n  setup:\n    - notify: ping\n", 1)},
			"fuzz setup step 1: notify takes a message (an object) and stands alone"),
		Entry("fixture naming an unknown rule",
			map[string]string{"fixtures/sonde-serve/x.yaml": strings.Replace(string(goodFixture), "rule: SONDE-LIST-1", "rule: SONDE-LIST-9", 1)},
			"fixtures/sonde-serve/x.yaml:7: step 2: rule SONDE-LIST-9 is not in the sonde-serve catalogue"),
		Entry("fixture step with two actions",
			map[string]string{"fixtures/sonde-serve/x.yaml": "name: x\nrules: [SONDE-LIST-1]\nsteps:\n  - send: {id: 1}\n    close_stdin: true\n"},
			"fixtures/sonde-serve/x.yaml:4: step 1 has 2 actions"),
		Entry("fixture expecting an unnamed send",
			map[string]string{"fixtures/sonde-serve/x.yaml": "name: x\nrules: [SONDE-LIST-1]\nsteps:\n  - expect: nope\n    rule: SONDE-LIST-1\n"},
			`fixtures/sonde-serve/x.yaml:4: step 1: expect "nope": no earlier send step has 'as: nope'`),
		Entry("fixture with a bad regular expression",
			map[string]string{"fixtures/sonde-serve/x.yaml": "name: x\nrules: [SONDE-LIST-1]\nsteps:\n  - send: {id: 1}\n    as: a\n  - expect: a\n    rule: SONDE-LIST-1\n    pattern: {/x: '('}\n"},
			"fixtures/sonde-serve/x.yaml:6: step 2: pattern for /x: error parsing regexp"),
		Entry("fixture with a bad duration",
			map[string]string{"fixtures/sonde-serve/x.yaml": "name: x\nrules: [SONDE-EMPTY-1]\nsteps:\n  - expect_silence: 3 seconds\n    rule: SONDE-EMPTY-1\n"},
			"fixtures/sonde-serve/x.yaml:4: bad duration \"3 seconds\""),
		Entry("empty fixture",
			map[string]string{"fixtures/sonde-serve/x.yaml": ""},
			"fixtures/sonde-serve/x.yaml: file is empty"),
	)
})

// lineOf is the 1-based line on which text first stands in body.
func lineOf(body, text string) int {
	return strings.Count(body[:strings.Index(body, text)], "\n") + 1
}
