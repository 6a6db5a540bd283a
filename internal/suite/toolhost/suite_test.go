package toolhost_test

import (
	"encoding/json"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/refserver/toolhost"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

func TestToolHostSuite(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "tool-host scenarios Suite")
}

var _ = Describe("the tool-host suite against a host without the optional methods", func() {
	It("reports every optional-method rule as skipped, not failed, and fails nothing", func() {
		// The reference host answers the methods its init config lists as
		// unknown methods.
		config, _ := json.Marshal(map[string]any{"unimplemented": toolhost.Optional})
		rep, err := testrun.Run(testrun.Server{Protocol: "tool-host"}, runner.Config{
			Timeout: 2 * time.Second, Params: map[string]string{"config": string(config)},
		})
		Expect(err).NotTo(HaveOccurred())
		optional := map[string]bool{
			"TOOLHOST-OPT-CONFIG-SCHEMA-1": true, "TOOLHOST-OPT-UI-ELEMENTS-1": true, "TOOLHOST-OPT-TAGS-1": true,
			"TOOLHOST-OPT-REQUIRED-TAGS-1": true, "TOOLHOST-OPT-FORMAT-RESULT-1": true, "TOOLHOST-OPT-PREVIEW-1": true,
			"TOOLHOST-OPT-DISPLAY-1": true,
		}
		// Rules only a format_tool_result answer can show are not observed.
		unobserved := map[string]bool{"TOOLHOST-OPT-FORMAT-RESULT-2": true, "TOOLHOST-NATIVE-1": true, "TOOLHOST-NATIVE-2": true}
		seen := map[string]bool{}
		for _, f := range rep.Findings {
			switch {
			case optional[f.Rule]:
				seen[f.Rule] = true
				Expect(f.Verdict).To(Equal(verdict.Skip), "rule %s in %s: %s", f.Rule, f.Scenario, f.Message)
				Expect(f.Message).To(ContainSubstring("does not implement"))
			case unobserved[f.Rule]:
				Expect(f.Verdict).To(Equal(verdict.Skip), "rule %s in %s: %s", f.Rule, f.Scenario, f.Message)
			default:
				Expect(f.Verdict).To(Equal(verdict.Pass), "rule %s in %s: %s", f.Rule, f.Scenario, f.Message)
			}
		}
		Expect(seen).To(HaveLen(len(optional)))
	})
})
