package runner_test

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testbin"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// runFault runs scenarios in one lane against the sonde-serve reference
// server with a fault.
func runFault(fault string, scs ...*scenario.Scenario) *report.Report {
	bin, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	b, err := protocols.Load("sonde-serve")
	Expect(err).NotTo(HaveOccurred())
	rep, err := runner.Run(context.Background(), runner.Config{
		Protocol: b.Protocol, Schemas: b.Schemas, Scenarios: scs, Handler: b.Handler,
		Target:  target.Target{Argv: []string{bin, "serve", "sonde-serve", "--fault", fault}},
		Timeout: time.Second, Jobs: 1,
	})
	Expect(err).NotTo(HaveOccurred())
	return rep
}

// messages lists the messages of the findings of rule.
func messages(rep *report.Report, rule string) map[string]string {
	out := map[string]string{}
	for _, f := range rep.Findings {
		if f.Rule == rule {
			out[f.Scenario] = string(f.Verdict) + ": " + f.Message
		}
	}
	return out
}

// calling is a scenario that calls the echo tool, deciding SONDE-CALL-1 on
// the answer.
func calling(name string) *scenario.Scenario {
	return &scenario.Scenario{Name: name, Rules: []string{"SONDE-CALL-1"}, Run: func(e *scenario.Env) error {
		in, _, err := e.Call(map[string]any{"id": scenario.NextID(name), "method": "tools/call", "params": map[string]any{"name": "echo", "input": map[string]any{"text": "hi"}}})
		if err != nil {
			e.Fail("SONDE-CALL-1", -1, err.Error(), "an answer", "nothing")
			return nil
		}
		e.Pass("SONDE-CALL-1", in.Seq)
		return nil
	}}
}

// garbled is a step scenario that writes a line that is not JSON and
// expects an answer to it.
func garbled(name string) *scenario.Scenario {
	line := "not json at all"
	return &scenario.Scenario{Name: name, Rules: []string{"SONDE-MALFORMED-2"}, Steps: []scenario.Step{
		{SendLine: &line},
		{ExpectFrame: true, Rule: "SONDE-MALFORMED-2", Assert: scenario.Assert{Match: map[string]any{"/id": nil}}},
	}}
}

var _ = Describe("a fault costs a timeout once per lane", func() {
	It("ends later waits for a method the server left unanswered at once, naming the wait that paid", func() {
		rep := runFault("drop-call", calling("one"), calling("two"), calling("three"))
		msgs := messages(rep, "SONDE-CALL-1")
		Expect(msgs).To(HaveLen(3))
		Expect(msgs["one"]).To(ContainSubstring("within 1s (--timeout)"))
		for _, s := range []string{"two", "three"} {
			Expect(msgs[s]).To(ContainSubstring("not waited"), s)
			Expect(msgs[s]).To(ContainSubstring("in scenario one"), s)
		}
		waited := 0
		for _, f := range rep.Findings {
			if f.Rule == "SONDE-ONE-RESPONSE-1" && f.Verdict == verdict.Fail && strings.Contains(f.Message, "within 1s") {
				waited++
			}
		}
		Expect(waited).To(Equal(1), "one wait ran out its timeout")
	})

	It("ends later waits for a frame a rule expects and the server did not send", func() {
		rep := runFault("malformed-silent", garbled("first"), garbled("second"))
		msgs := messages(rep, "SONDE-MALFORMED-2")
		Expect(msgs["first"]).To(HavePrefix("fail: no frame within 1s (--timeout)"))
		Expect(msgs["second"]).To(HavePrefix("skip: not waited"))
		Expect(msgs["second"]).To(ContainSubstring("in scenario first"))
	})

	It("waits in full against a server that answers", func() {
		rep := runFault("list-no-schema", calling("one"), calling("two"))
		Expect(messages(rep, "SONDE-CALL-1")).To(HaveKeyWithValue("two", HavePrefix("pass")))
	})
})
