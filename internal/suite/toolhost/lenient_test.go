package toolhost_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// against runs the whole tool-host suite against the reference host with
// the given variants.
func against(variants ...string) *report.Report {
	rep, err := testrun.Run(testrun.Server{Protocol: "tool-host", Variants: variants}, runner.Config{
		Timeout: 2 * time.Second,
	})
	Expect(err).NotTo(HaveOccurred())
	return rep
}

var _ = Describe("the tool-host suite against a lenient host", func() {
	It("passes at --level should a host that serves what it could refuse; each preference for refusing is a MAY finding", func() {
		rep := against("params-default", "lenient-params", "serve-no-id", "omit-null-id", "vague-decline")
		for _, f := range rep.Findings {
			if f.Level != verdict.May {
				Expect(f.Verdict).NotTo(BeElementOf(verdict.Fail, verdict.Error), "rule %s in %s: %s\n%s", f.Rule, f.Scenario, f.Message, f.Actual)
			}
		}
		Expect(rep.Failed(verdict.Should)).To(BeFalse())
		v := testrun.Verdicts(rep)
		Expect(v).To(HaveKeyWithValue("TOOLHOST-GEN-BAD-PARAMS", verdict.Pass))
		Expect(v).To(HaveKeyWithValue("TOOLHOST-GEN-UNREADABLE", verdict.Pass))
		Expect(v).To(HaveKeyWithValue("TOOLHOST-GEN-UNKNOWN-METHOD", verdict.Pass))
		for _, may := range []string{"TOOLHOST-GEN-NO-ID-2", "TOOLHOST-GEN-BAD-PARAMS-2", "TOOLHOST-GEN-UNKNOWN-METHOD-2"} {
			Expect(v).To(HaveKeyWithValue(may, verdict.Fail), "the preference %s is reported", may)
		}
	})

	It("skips, not fails, the optional-method rules when the host declines them in words wirecheck does not recognise", func() {
		rep := against("vague-decline")
		optional := []string{"TOOLHOST-OPT-CONFIG-SCHEMA-1", "TOOLHOST-OPT-UI-ELEMENTS-1", "TOOLHOST-OPT-TAGS-1",
			"TOOLHOST-OPT-REQUIRED-TAGS-1", "TOOLHOST-OPT-FORMAT-RESULT-1", "TOOLHOST-OPT-PREVIEW-1", "TOOLHOST-OPT-DISPLAY-1"}
		v := testrun.Verdicts(rep)
		for _, r := range optional {
			Expect(v).To(HaveKeyWithValue(r, verdict.Skip), r)
		}
		for _, f := range rep.Findings {
			if f.Rule == "TOOLHOST-OPT-TAGS-1" {
				Expect(f.Message).To(ContainSubstring("answered ok false"))
				Expect(f.Message).To(ContainSubstring("no handler for get_tags"))
			}
		}
	})

	It("takes a refused init for an implemented one, and skips the state it could not carry, naming --param config", func() {
		rep := against("config-required")
		v := testrun.Verdicts(rep)
		Expect(v).To(HaveKeyWithValue("TOOLHOST-METHODS-1", verdict.Pass))
		Expect(v).To(HaveKeyWithValue("TOOLHOST-STATE-1", verdict.Skip))
		for _, f := range rep.Findings {
			if f.Rule == "TOOLHOST-STATE-1" {
				Expect(f.Message).To(ContainSubstring("--param config=JSON"))
			}
		}
	})
})

var _ = Describe("the tool-host envelope schemas", func() {
	var reg *schema.Registry
	BeforeEach(func() {
		b, err := protocols.Load("tool-host")
		Expect(err).NotTo(HaveOccurred())
		reg = b.Schemas
	})

	valid := func(file, frame string) error {
		v, err := schema.Decode([]byte(frame))
		Expect(err).NotTo(HaveOccurred())
		return reg.Get(file).Validate(v)
	}

	DescribeTable("judge the envelope, not the id (the id rules do)",
		func(file, frame string, ok bool) {
			if ok {
				Expect(valid(file, frame)).To(Succeed())
			} else {
				Expect(valid(file, frame)).NotTo(Succeed())
			}
		},
		Entry("an answer without an id key (to a line without one)", "response.json", `{"v":1,"ok":false,"error":{"type":"ParseError","detail":"x"}}`, true),
		Entry("an answer echoing an id of another type", "response.json", `{"v":1,"id":true,"ok":true,"result":{"value":1}}`, true),
		Entry("an answer without ok", "response.json", `{"v":1,"id":"a","result":{"value":1}}`, false),
		Entry("an event under a number id", "event.json", `{"v":1,"id":7,"event":{"type":"part","payload":{}}}`, true),
		Entry("an event without an id", "event.json", `{"v":1,"event":{"type":"part","payload":{}}}`, false),
	)
})
