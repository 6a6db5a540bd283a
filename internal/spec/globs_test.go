package spec_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/spec"
)

var _ = Describe("globs of --rules and --scenario", func() {
	It("accepts well-formed globs, and none", func() {
		Expect(spec.CheckGlobs([]string{"SONDE-*", "a?c"}, nil, []string{"[ab]*"})).To(Succeed())
		Expect(spec.CheckGlobs()).To(Succeed())
	})

	It("refuses a malformed one in any list, naming it", func() {
		Expect(spec.CheckGlobs([]string{"ok"}, []string{"[oops"})).To(MatchError(HavePrefix(`bad glob "[oops": `)))
	})

	It("selects by them, everything for none", func() {
		Expect(spec.Selects(nil, "X-1")).To(BeTrue())
		Expect(spec.Selects([]string{"SONDE-*"}, "SONDE-ID-1")).To(BeTrue())
		Expect(spec.Selects([]string{"SONDE-*"}, "MCP-1")).To(BeFalse())
	})
})
