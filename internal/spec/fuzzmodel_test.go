package spec_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// model is a protocol whose fuzz model lists items and follows them up:
// one request awaited and undone, one left open and cancelled.
const model = `id: model
source: model.txt
versions:
  param: rev
  default: "1"
  list: [{id: "1"}, {id: "2"}]
rules:
  - {id: MOD-ACK-1, level: MUST, title: acknowledged, section: S, checks: [frame.known]}
  - {id: MOD-QUIET-1, level: MUST, title: quiet once cancelled, section: S, checks: [frame.known]}
fuzz:
  sources:
    things:
      when: [/result/things]
      list: {method: things/list}
      items: /result/things
      name: /name
  follow:
    - item: things
      request: {method: things/watch, params: {name: $name}}
      undo: {method: things/unwatch, params: {name: $name}}
      yields: {things: /result/name}
  requests:
    - {schema: "things.json#/$defs/ListRequest", when: [/result/things]}
  per_version:
    "2":
      requests:
        - {schema: "things.json#/$defs/WatchRequest"}
      follow:
        - item: things
          when: [/result/things/watch]
          request: {method: things/listen, params: {filter: {$some: {all: {when: [/result/all], value: true}}}, name: $name}}
          open:
            ack: {rule: MOD-ACK-1, match: {/method: ack, /params/id: $id}}
            cancel: {method: cancel, params: {id: $id}}
            unanswered: MOD-QUIET-1
`

func parseModel(edit func(string) string) (*spec.Protocol, error) {
	src := model
	if edit != nil {
		src = edit(src)
	}
	return spec.Parse("specs/model.yaml", []byte(src), nil, verdict.Checks, nil)
}

var _ = Describe("the fuzz model's sources and follow-up requests", func() {
	It("load, the revision's follow-up requests in place of the common ones", func() {
		p, err := parseModel(nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Fuzz.Follow).To(HaveLen(1))
		Expect(p.Fuzz.Follow[0].Undo).NotTo(BeNil())
		q, err := p.ForVersion("2")
		Expect(err).NotTo(HaveOccurred())
		Expect(q.Fuzz.Follow).To(HaveLen(1))
		Expect(q.Fuzz.Follow[0].Open.Unanswered).To(Equal("MOD-QUIET-1"))
		Expect(q.Fuzz.Sources).To(HaveKey("things"))
		// A revision's requests are drawn besides the common ones.
		Expect(p.Fuzz.Requests).To(HaveLen(1))
		Expect(q.Fuzz.Requests).To(HaveLen(2))
		Expect(q.Fuzz.Requests[1].Schema).To(Equal("things.json#/$defs/WatchRequest"))
		Expect(p.Fuzz.Follow[0].Yields).To(HaveKeyWithValue("things", "/result/name"))
	})

	DescribeTable("a broken one is rejected at its file and line",
		func(old, repl, want string) {
			_, err := parseModel(func(s string) string {
				Expect(s).To(ContainSubstring(old))
				return strings.Replace(s, old, repl, 1)
			})
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(ContainSubstring(want))
		},
		Entry("an item of no source", "    - item: things\n      request: {method: things/watch",
			"    - item: thing\n      request: {method: things/watch", `specs/model.yaml:18: fuzz follow 1: item "thing" is no source of the fuzz model`),
		Entry("$name without an item", "    - item: things\n      request: {method: things/watch",
			"    - request: {method: things/watch", `specs/model.yaml:18: fuzz follow 1: $name needs an item (a source)`),
		Entry("a yield into no source", "yields: {things:", "yields: {thing:",
			`specs/model.yaml:18: fuzz follow 1: yields "thing": no source of the fuzz model`),
		Entry("a yield that is no pointer", "{things: /result/name}", "{things: result/name}",
			`specs/model.yaml:18: fuzz follow 1: yields "things": "result/name" is not a JSON pointer`),
		Entry("a request without its schema", `    - {schema: "things.json#/$defs/ListRequest", when: [/result/things]}`, `    - {when: [/result/things]}`,
			`fuzz requests 1: schema is required`),
		Entry("a request condition that is no pointer", `when: [/result/things]}`, `when: [result/things]}`,
			`fuzz requests 1: when "result/things" is not a JSON pointer`),
		Entry("no request", "      request: {method: things/watch, params: {name: $name}}\n", "",
			`specs/model.yaml:18: fuzz follow 1: request is required`),
		Entry("a field the model does not know", "undo: {method", "undo2: {method", `field undo2 not found`),
		Entry("a condition that is no pointer", "when: [/result/things/watch]", "when: [result/things/watch]",
			`specs/model.yaml:29: fuzz follow 1: when "result/things/watch" is not a JSON pointer`),
		Entry("an ack of a rule not in the catalogue", "rule: MOD-ACK-1, match", "rule: MOD-ACK-2, match",
			`specs/model.yaml:29: fuzz follow 1: open ack: rule "MOD-ACK-2" is not in the catalogue`),
		Entry("an unanswered rule without a cancel", "            cancel: {method: cancel, params: {id: $id}}\n", "",
			`specs/model.yaml:29: fuzz follow 1: open unanswered needs a cancel`),
		Entry("a $some member without a value", "{all: {when: [/result/all], value: true}}", "{all: {when: [/result/all]}}",
			`specs/model.yaml:29: fuzz follow 1: $some member "all": give {when: [POINTER…], value: V}`),
		Entry("a $some member whose condition is no pointer", "{all: {when: [/result/all], value: true}}", "{all: {when: [result/all], value: true}}",
			`specs/model.yaml:29: fuzz follow 1: $some member "all": when result/all is not a JSON pointer`),
		Entry("a $some beside other members", "filter: {$some: {", "filter: {x: 1, $some: {",
			`specs/model.yaml:29: fuzz follow 1: $some takes an object of members and stands alone in its object`),
		Entry("a source without items", "      items: /result/things\n", "",
			`fuzz source "things": list, items and name are all required`),
		Entry("a source's name that is no pointer", "name: /name", "name: name",
			`fuzz source "things": items and name are JSON pointers`),
	)
})
