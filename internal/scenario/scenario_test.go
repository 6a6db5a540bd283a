package scenario_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

func TestScenario(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Scenario Suite")
}

const baseSpec = `id: demo
source: demo.txt
correlation: {id: /id, method: /method}
kinds:
  - {name: response, role: response, when: [{path: /id, present: true}], schema: response.json}
rules:
  - {id: DEMO-A-1, level: MUST, title: a, section: S}
`

const unimplemented = `unimplemented:
  - [{path: /ok, equals: false}, {path: /error/type, matches: '(?i)method.?not.?found'}]
`

func protocol(extra string) *spec.Protocol {
	p, err := spec.Parse("specs/demo.yaml", []byte(baseSpec+extra), nil, verdict.Checks, nil)
	Expect(err).NotTo(HaveOccurred())
	return p
}

var _ = Describe("a scenario file", func() {
	DescribeTable("with references and optional steps is checked at load",
		func(extra, body, want string) {
			_, err := scenario.Parse("fixtures/demo/x.yaml", []byte("name: x\nrules: [DEMO-A-1]\nsteps:\n"+body), protocol(extra))
			if want == "" {
				Expect(err).NotTo(HaveOccurred())
				return
			}
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(want))
		},
		Entry("a value carried from an earlier answer", "",
			"  - send: {id: 1}\n    as: a\n  - send: {id: 2, state: {$from: a, $path: /result/state, $default: {}}}\n", ""),
		Entry("a --param value", "",
			"  - send: {id: 1, config: {$param: config, $default: {}}}\n", ""),
		Entry("$from naming no earlier send", "",
			"  - send: {id: 2, state: {$from: later, $path: /x}}\n    as: now\n  - send: {id: 3}\n    as: later\n",
			`fixtures/demo/x.yaml:4: step 1: $from "later": no earlier send step has 'as: later'`),
		Entry("$from without a pointer", "",
			"  - send: {id: 1}\n    as: a\n  - send: {id: 2, state: {$from: a}}\n",
			"fixtures/demo/x.yaml:6: step 2: $path must be a JSON pointer"),
		Entry("$path that is not a pointer", "",
			"  - send: {id: 1}\n    as: a\n  - send: {id: 2, state: [{$from: a, $path: result}]}\n",
			"$path must be a JSON pointer"),
		Entry("$from and $param together", "",
			"  - send: {id: 1}\n    as: a\n  - send: {id: 2, state: {$from: a, $path: /x, $param: y}}\n",
			"a reference takes $from or $param, not both"),
		Entry("an unknown key in a reference", "",
			"  - send: {id: 1, config: {$param: config, $defualt: {}}}\n",
			"unknown key(s) in a reference: $defualt"),
		Entry("an optional expect step", unimplemented,
			"  - send: {id: 1}\n    as: a\n  - expect: a\n    optional: true\n    rule: DEMO-A-1\n", ""),
		Entry("optional on a send step", unimplemented,
			"  - send: {id: 1}\n    optional: true\n",
			"fixtures/demo/x.yaml:4: step 1: 'optional' applies to an expect step with a rule"),
		Entry("optional without a rule", unimplemented,
			"  - send: {id: 1}\n    as: a\n  - expect: a\n    optional: true\n",
			"'optional' applies to an expect step with a rule"),
		Entry("depends on an expect_frame step", "",
			"  - send_line: 'not json'\n  - expect_frame: true\n    depends: an answer to a line that is not JSON\n", ""),
		Entry("depends on another step", "",
			"  - send: {id: 1}\n    as: a\n  - expect: a\n    depends: an answer\n",
			"fixtures/demo/x.yaml:6: step 2: 'depends' applies to an expect_frame step"),
		Entry("also on an expect_frame step", "",
			"  - send_line: 'not json'\n  - expect_frame: true\n    rule: DEMO-A-1\n    also: [{rule: DEMO-A-1, match: {/ok: false}}]\n", ""),
		Entry("also on another step", "",
			"  - send: {id: 1}\n    as: a\n  - expect: a\n    also: [{rule: DEMO-A-1}]\n",
			"fixtures/demo/x.yaml:6: step 2: 'also' applies to an expect_frame step"),
		Entry("also naming an undeclared rule", "",
			"  - send_line: 'not json'\n  - expect_frame: true\n    also: [{rule: DEMO-B-1}]\n",
			"also: rule DEMO-B-1 is not in the"),
		Entry("a drain step", "",
			"  - send_line: 'not json'\n  - drain: true\n", ""),
		Entry("an open request, sought acknowledgement and cancelled answer", "",
			"  - send: {id: 1}\n    as: a\n    open: true\n  - expect_frame: true\n    seek: true\n    rule: DEMO-A-1\n    match: {/ack: 1}\n  - expect: a\n    cancelled: true\n    rule: DEMO-A-1\n", ""),
		Entry("open on another step", "",
			"  - send_line: 'x'\n    open: true\n",
			"fixtures/demo/x.yaml:4: step 1: 'open' applies to a send step"),
		Entry("cancelled on another step", "",
			"  - send: {id: 1}\n    cancelled: true\n",
			"fixtures/demo/x.yaml:4: step 1: 'cancelled' applies to an expect step"),
		Entry("seek without match conditions", "",
			"  - expect_frame: true\n    seek: true\n",
			"fixtures/demo/x.yaml:4: step 1: 'seek' applies to an expect_frame step with match conditions"),
		Entry("optional in a protocol that does not say how a method is declined", "",
			"  - send: {id: 1}\n    as: a\n  - expect: a\n    optional: true\n    rule: DEMO-A-1\n",
			"needs the demo spec to say how a server answers a method it does not implement (unimplemented:)"),
	)
})

var _ = Describe("a spec's conditions", func() {
	DescribeTable("are checked at load",
		func(extra, want string) {
			_, err := spec.Parse("specs/demo.yaml", []byte(baseSpec+extra), nil, verdict.Checks, nil)
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(want))
		},
		Entry("a bad regular expression", "unimplemented:\n  - [{path: /ok, equals: false}]\n  - [{path: /error/type, matches: '(('}]\n",
			"specs/demo.yaml:10: unimplemented: condition on /error/type: matches: error parsing regexp"),
		Entry("matches with equals", "unimplemented:\n  - [{path: /error/type, matches: x, equals: y}]\n",
			"matches cannot be combined with equals or present"),
		Entry("an empty alternative", "unimplemented:\n  - []\n",
			"an alternative without conditions would match every answer"),
		Entry("a frame rule condition that is not a pointer",
			"  - {id: DEMO-B-1, level: SHOULD, title: b, section: S, frames: {roles: [response], schema: r.json, when: [{path: x, present: true}]}}\n",
			`rule DEMO-B-1: frames: condition path "x" must be a JSON pointer`),
	)

	It("match strings by regular expression, and nothing else", func() {
		p := protocol(unimplemented)
		alt := p.Unimplemented[0]
		decode := func(s string) any {
			v, err := scenarioDecode(s)
			Expect(err).NotTo(HaveOccurred())
			return v
		}
		Expect(peer.Matches(decode(`{"ok": false, "error": {"type": "MethodNotFound"}}`), alt)).To(BeTrue())
		Expect(peer.Matches(decode(`{"ok": false, "error": {"type": "method_not_found"}}`), alt)).To(BeTrue())
		Expect(peer.Matches(decode(`{"ok": false, "error": {"type": "ToolNotFound"}}`), alt)).To(BeFalse())
		Expect(peer.Matches(decode(`{"ok": false, "error": {"type": 404}}`), alt)).To(BeFalse())
		Expect(peer.Matches(decode(`{"ok": false}`), alt)).To(BeFalse())
		Expect(peer.Matches(decode(`{"ok": true, "error": {"type": "MethodNotFound"}}`), alt)).To(BeFalse())
	})
})
