package main

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The reference server's variant slow-tool lists long-poll, which answers
// no call until cancelled: slower than any --timeout, whatever the
// machine's load.
var _ = Describe("a tool slower than --timeout", func() {
	srv := func() []string { return []string{"--", bin(), "serve", "mcp", "--variant", "slow-tool"} }

	It("is noted as not judged, naming --timeout and --param skip-tool, and fails nothing", func() {
		code, out, errs := cli("", append([]string{"run", "--protocol", "mcp", "--scenario", "tools", "--timeout", "1s", "--no-progress"}, srv()...)...)
		Expect(code).To(Equal(0), out+errs)
		Expect(out).To(ContainSubstring(`tool "long-poll" not judged: no answer within 1s (--timeout)`))
		Expect(out).To(ContainSubstring("--param skip-tool=long-poll"))
		Expect(out).To(MatchRegexp(`0 fail, \d+ skip, 0 error`))
	})

	It("is left out with --param skip-tool, repeatable", func() {
		code, out, errs := cli("", append([]string{"run", "--protocol", "mcp", "--scenario", "tools", "--timeout", "1s", "--no-progress",
			"--param", "skip-tool=long-poll", "--param", "skip-tool=echo"}, srv()...)...)
		Expect(code).To(Equal(0), out+errs)
		Expect(out).NotTo(ContainSubstring("long-poll"), "never called, so never waited for")
	})
})
