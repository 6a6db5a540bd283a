package buildinfo_test

import (
	"runtime/debug"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/buildinfo"
)

func TestBuildinfo(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Buildinfo Suite")
}

var _ = Describe("what a binary says it is", func() {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-11-26T12:00:00Z"}, {Key: "vcs.modified", Value: "true"}}
	DescribeTable("From",
		func(stamped, module string, settings []debug.BuildSetting, want string) {
			bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/wirecheck/wirecheck", Version: module}, Settings: settings}
			Expect(buildinfo.From(stamped, bi).String()).To(Equal(want))
		},
		Entry("the Makefile's stamp wins", "v0.9.0-3-gabc", "v1.0.0", nil, "v0.9.0-3-gabc (go1.26.0)"),
		Entry("go install records the module version", "dev", "v1.2.0", nil, "v1.2.0 (go1.26.0)"),
		Entry("a checkout build says dev and its revision", "", "(devel)", vcs, "dev (rev 0123456789ab, 2026-11-26T12:00:00Z, modified; go1.26.0)"),
	)

	It("reads this test binary's own information", func() {
		in := buildinfo.Read("")
		Expect(in.Version).NotTo(BeEmpty())
		Expect(in.Go).To(HavePrefix("go"))
	})
})
