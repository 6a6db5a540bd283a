package main

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/report"
)

// Issue 27: one version string, -v said plainly, and one rule for the
// default levels that each command's help and the report state.
var _ = Describe("version and help", func() {
	It("prints the same line for 'version', --version and -v", func() {
		code, want, errs := cli("", "version")
		Expect(code).To(Equal(0), errs)
		Expect(want).To(MatchRegexp(`^wirecheck \S+.*\n$`))
		for _, flag := range []string{"--version", "-v"} {
			code, got, errs := cli("", flag)
			Expect(code).To(Equal(0), errs)
			Expect(got).To(Equal(want), flag)
		}
	})

	It("says in the top-level help that -v is the version there and --verbose below", func() {
		_, out, _ := cli("", "--help")
		Expect(out).To(MatchRegexp(`-v, --version +print the version .*-v means --version only here, before any command; after run or replay it means --verbose`))
		for _, cmd := range []string{"run", "replay"} {
			_, out, _ := cli("", cmd, "--help")
			Expect(out).To(MatchRegexp(`-v, --verbose `), cmd)
		}
	})

	DescribeTable("states the rule of the default levels in each --help",
		func(cmd, def string) {
			_, out, _ := cli("", cmd, "--help")
			flat := strings.Join(strings.Fields(out), " ")
			Expect(flat).To(ContainSubstring(report.LevelRule + ` (default "` + def + `")`))
		},
		Entry("run", "run", "must"),
		Entry("fuzz", "fuzz", "should"),
		Entry("replay", "replay", "may"),
	)

	It("states the level and the rule in the console report's header", func() {
		code, out, errs := cli("", "run", "--protocol", "sonde-serve", "--scenario", "tools-list", "--level", "should", "--no-color",
			"--", bin(), "serve", "sonde-serve")
		Expect(code).To(Equal(0), out+errs)
		Expect(out).To(MatchRegexp(`(?m)\Awirecheck .*\nstarted .*\njudged at level SHOULD: a failure at or above it fails the run \(defaults: run must, fuzz should, replay may; --level sets it\)\n\n`))
	})
})
