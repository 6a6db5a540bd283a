package sondeserve

import (
	"encoding/json"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSondeServeScenarios(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "sonde-serve scenarios Suite")
}

var _ = Describe("a tool run that failed", func() {
	DescribeTable("is told from its output",
		func(output any, want string) { Expect(failedInside(output)).To(Equal(want)) },
		Entry("an exit status", map[string]any{"exitCode": json.Number("1"), "stderr": "boom"}, "exitCode 1"),
		Entry("exit status 0 is a success", map[string]any{"exitCode": json.Number("0"), "stdout": "hi"}, ""),
		Entry("success false", map[string]any{"success": false}, "success false"),
		Entry("an error message", map[string]any{"error": "quota exceeded"}, `error "quota exceeded"`),
		Entry("a failed status", map[string]any{"status": "failed"}, `status "failed"`),
		Entry("an ordinary output", map[string]any{"url": "https://preview.example.invalid/"}, ""),
		Entry("an output that is no object", "done", ""),
	)

	It("is named in SONDE-RUNTIME-1's skip when it was answered ok true, not called absent", func() {
		why := runtimeUnseen([]string{`"fail" (exitCode 1, transcript line 7)`})
		Expect(why).To(ContainSubstring(`tool "fail" (exitCode 1, transcript line 7) reported a failed run in its output under ok true`))
		Expect(why).NotTo(ContainSubstring("no listed tool failed"))
		Expect(runtimeUnseen(nil)).To(ContainSubstring("none reported a failure in its output"))
	})
})
