package spec_test

import (
	"maps"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/spec"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// mixed is a protocol of three transports whose one check stands for a
// different rule on each.
const mixed = `id: mixed
source: mixed.txt
transports: [stdio, http, sse]
versions:
  param: rev
  default: "1"
  list: [{id: "1"}, {id: "2"}]
rules:
  - {id: MIX-STDIO-1, level: MUST, title: lines, section: S, checks: [ndjson.json], transports: [stdio]}
  - {id: MIX-HTTP-1, level: MUST, title: bodies, section: S, checks: [ndjson.json], transports: [http]}
  - {id: MIX-SSE-1, level: MUST, title: events, section: S, checks: [ndjson.json], transports: [sse]}
  - {id: MIX-WEB-1, level: SHOULD, title: both, section: S, checks: [frame.known], transports: [http, sse]}
  - {id: MIX-ALL-1, level: MUST, title: all, section: S, checks: [frame.known]}
faults:
  - {name: web-fault, trips: [MIX-HTTP-1], transport: http}
variants:
  - {name: web-choice, does: x, transport: sse}
`

func parse(src string) (*spec.Protocol, error) {
	return spec.Parse("specs/mixed.yaml", []byte(src), nil, verdict.Checks, nil)
}

func ids(rs []*spec.Rule) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

var _ = Describe("transports", func() {
	It("resolve a loaded spec for its first transport", func() {
		p, err := parse(mixed)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Transport).To(Equal("stdio"))
		Expect(ids(p.RulesForCheck(verdict.CheckJSON))).To(ConsistOf("MIX-STDIO-1"))
		Expect(ids(p.RulesForCheck(verdict.CheckKnown))).To(ConsistOf("MIX-ALL-1"))
		Expect(p.Fault("web-fault").Transport).To(Equal("http"))
		Expect(p.Variant("web-choice").Transport).To(Equal("sse"))
	})

	It("let a check stand only for the rules of the transport the protocol is resolved for", func() {
		p, err := parse(mixed)
		Expect(err).NotTo(HaveOccurred())
		h, err := p.ForTransport("http")
		Expect(err).NotTo(HaveOccurred())
		Expect(h.Transport).To(Equal("http"))
		Expect(ids(h.RulesForCheck(verdict.CheckJSON))).To(ConsistOf("MIX-HTTP-1"))
		Expect(ids(h.RulesForCheck(verdict.CheckKnown))).To(ConsistOf("MIX-WEB-1", "MIX-ALL-1"))
		s, err := p.ForTransport("sse")
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(s.RulesForCheck(verdict.CheckJSON))).To(ConsistOf("MIX-SSE-1"))
		// Every rule stays in the catalogue, for the report to list.
		Expect(h.Rule("MIX-STDIO-1")).NotTo(BeNil())
		Expect(h.Rules).To(HaveLen(len(p.Rules)))
		Expect(h.Applies(h.Rule("MIX-STDIO-1"))).To(BeFalse())
		Expect(h.Applies(h.Rule("MIX-WEB-1"))).To(BeTrue())
		// The receiver is left as it was.
		Expect(ids(p.RulesForCheck(verdict.CheckJSON))).To(ConsistOf("MIX-STDIO-1"))
	})

	It("take the first transport for the empty name, and refuse one the spec does not list", func() {
		p, err := parse(mixed)
		Expect(err).NotTo(HaveOccurred())
		h, _ := p.ForTransport("http")
		d, err := h.ForTransport("")
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Transport).To(Equal("stdio"))
		_, err = p.ForTransport("carrier-pigeon")
		Expect(err).To(MatchError(`protocol mixed has no transport "carrier-pigeon" (known: stdio, http, sse)`))
	})

	It("survive a change of revision, both ways round", func() {
		p, err := parse(mixed)
		Expect(err).NotTo(HaveOccurred())
		h, err := p.ForTransport("http")
		Expect(err).NotTo(HaveOccurred())
		v2, err := h.ForVersion("2")
		Expect(err).NotTo(HaveOccurred())
		Expect(v2.Version).To(Equal("2"))
		Expect(v2.Transport).To(Equal("http"))
		Expect(ids(v2.RulesForCheck(verdict.CheckJSON))).To(ConsistOf("MIX-HTTP-1"))
		s, err := v2.ForTransport("sse")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Version).To(Equal("2"))
		Expect(ids(s.RulesForCheck(verdict.CheckJSON))).To(ConsistOf("MIX-SSE-1"))
	})

	It("and revisions both narrow what a check stands for", func() {
		p, err := parse(`id: rev
source: s
transports: [stdio, http]
versions: {param: rev, default: "1", list: [{id: "1"}, {id: "2"}]}
rules:
  - {id: REV-OLD-1, level: SHOULD, title: a, section: S, checks: [http.stream-has-response], transports: [http], versions: ["1"]}
  - {id: REV-ALL-1, level: SHOULD, title: b, section: S, checks: [http.stream-has-response], transports: [http]}
`)
		Expect(err).NotTo(HaveOccurred())
		Expect(p.RulesForCheck(httpmcp.CheckHTTPStreamHasResponse)).To(BeEmpty(), "stdio")
		h, err := p.ForTransport("http")
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(h.RulesForCheck(httpmcp.CheckHTTPStreamHasResponse))).To(ConsistOf("REV-OLD-1", "REV-ALL-1"))
		h2, err := h.ForVersion("2")
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(h2.RulesForCheck(httpmcp.CheckHTTPStreamHasResponse))).To(ConsistOf("REV-ALL-1"))
	})

	It("leave a revision the rules of a transport it does not define, on that transport only", func() {
		p, err := parse(`id: era
source: s
transports: [stdio, http, sse]
versions: {param: rev, default: "2", list: [{id: "1", transports: [stdio, sse]}, {id: "2"}]}
rules:
  - {id: ERA-HTTP-1, level: MUST, title: a, section: S, checks: [http.stream-has-response], transports: [http]}
  - {id: ERA-WEB-1, level: MUST, title: b, section: S, checks: [frame.known], transports: [http, sse]}
  - {id: ERA-SSE-1, level: MUST, title: c, section: S, transports: [sse]}
  - {id: ERA-ALL-1, level: MUST, title: d, section: S}
`)
		Expect(err).NotTo(HaveOccurred())
		h, err := p.ForTransport("http")
		Expect(err).NotTo(HaveOccurred())
		old, err := h.ForVersion("1")
		Expect(err).NotTo(HaveOccurred())
		for _, id := range []string{"ERA-HTTP-1", "ERA-WEB-1"} {
			Expect(h.InRevision(h.Rule(id), "2")).To(BeTrue(), id)
			Expect(h.InRevision(h.Rule(id), "1")).To(BeFalse(), id)
			Expect(old.Applies(old.Rule(id))).To(BeFalse(), id)
			Expect(old.NotInRevision(old.Rule(id))).To(Equal("not a rule of revision 1, which has no HTTP transport"))
		}
		Expect(old.RulesForCheck(httpmcp.CheckHTTPStreamHasResponse)).To(BeEmpty())
		Expect(ids(old.RulesForCheck(verdict.CheckKnown))).To(BeEmpty())
		// A rule of every transport is the revision's; one of another
		// transport is left to AppliesOn ("legacy HTTP+SSE only"), alike
		// in every revision.
		Expect(old.InRevision(old.Rule("ERA-ALL-1"), "1")).To(BeTrue())
		Expect(old.InRevision(old.Rule("ERA-SSE-1"), "1")).To(BeTrue())
		Expect(old.NotInRevision(old.Rule("ERA-SSE-1"))).To(BeEmpty())
		// Over a transport the revision has, nothing changes.
		s, err := old.ForTransport("sse")
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Applies(s.Rule("ERA-WEB-1"))).To(BeTrue())
		Expect(ids(s.RulesForCheck(verdict.CheckKnown))).To(ConsistOf("ERA-WEB-1"))

		_, err = parse(strings.Replace(mixed, `list: [{id: "1"}`, `list: [{id: "1", transports: [stdio, smtp]}`, 1))
		Expect(err).To(MatchError(ContainSubstring(`version 1: transport "smtp" is not in the spec's transports list`)))
	})

	It("default to stdio alone for a spec that names none", func() {
		p, err := parse("id: plain\nsource: s\nrules:\n  - {id: PLAIN-A-1, level: MUST, title: a, section: S, checks: [ndjson.json]}\n")
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Transports).To(Equal([]string{"stdio"}))
		Expect(p.Transport).To(Equal("stdio"))
		Expect(ids(p.RulesForCheck(verdict.CheckJSON))).To(ConsistOf("PLAIN-A-1"))
		_, err = p.ForTransport("http")
		Expect(err).To(HaveOccurred())
	})

	It("say which transports a fault or variant row runs over", func() {
		p, err := parse(strings.Replace(mixed, "variants:\n", `  - {name: json-fault, trips: [MIX-HTTP-1, MIX-SSE-1]}
  - {name: any-fault, trips: [MIX-ALL-1]}
  - {name: stdio-fault, trips: [MIX-STDIO-1, MIX-WEB-1], transport: stdio}
variants:
`, 1))
		Expect(err).NotTo(HaveOccurred())
		Expect(p.FaultTransports(p.Fault("web-fault"))).To(Equal([]string{"http"}))
		Expect(p.FaultTransports(p.Fault("json-fault"))).To(Equal([]string{"http", "sse"}))
		Expect(p.FaultTransports(p.Fault("any-fault"))).To(Equal([]string{"stdio", "http", "sse"}))
		Expect(p.FaultTransports(p.Fault("stdio-fault"))).To(Equal([]string{"stdio"}))
		Expect(p.VariantTransports(p.Variant("web-choice"))).To(Equal([]string{"sse"}))
		Expect(p.VariantTransports(&spec.Variant{Name: "plain"})).To(Equal([]string{"stdio", "http", "sse"}))
	})

	It("refuse a check no module registered, with the file and line", func() {
		// The catalogue as it would be without the HTTP transports' module.
		engine := maps.Clone(verdict.Checks)
		delete(engine, httpmcp.CheckHTTPAccepted)
		src := strings.Replace(mixed, "checks: [ndjson.json], transports: [http]}", "checks: [http.accepted], transports: [http]}", 1)
		_, err := spec.Parse("specs/mixed.yaml", []byte(src), nil, engine, nil)
		Expect(err).To(MatchError(ContainSubstring(`specs/mixed.yaml:10: rule MIX-HTTP-1: unknown check "http.accepted"`)))
		_, err = parse(src)
		Expect(err).NotTo(HaveOccurred(), "registered by the module that decides it")
	})

	DescribeTable("that a spec does not know are refused with the file and line",
		func(from, to, want string) {
			src := mixed
			if from != "" {
				Expect(src).To(ContainSubstring(from))
				src = strings.Replace(src, from, to, 1)
			}
			_, err := parse(src)
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("in the spec's list", "transports: [stdio, http, sse]", "transports: [stdio, http, smoke]",
			`specs/mixed.yaml:1: unknown transport "smoke" (want stdio, http, sse)`),
		Entry("on a rule", "checks: [ndjson.json], transports: [sse]}", "checks: [ndjson.json], transports: [ssse]}",
			`specs/mixed.yaml:11: rule MIX-SSE-1: transport "ssse" is not in the spec's transports list (stdio, http, sse)`),
		Entry("on a rule, one the spec does not offer", "transports: [stdio, http, sse]", "transports: [stdio, http]",
			`specs/mixed.yaml:11: rule MIX-SSE-1: transport "sse" is not in the spec's transports list (stdio, http)`),
		Entry("on a fault", "transport: http}", "transport: https}",
			`specs/mixed.yaml:15: fault "web-fault": transport "https" is not in the spec's transports list`),
		Entry("on a variant", "transport: sse}", "transport: SSE}",
			`specs/mixed.yaml:17: variant "web-choice": transport "SSE" is not in the spec's transports list`),
	)

	DescribeTable("name where a rule holds, for the report of a run elsewhere",
		func(trs []string, want string) {
			Expect((&spec.Rule{Transports: trs}).OnlyOn()).To(Equal(want))
		},
		Entry("every transport", nil, ""),
		Entry("stdio", []string{"stdio"}, "stdio only"),
		Entry("Streamable HTTP", []string{"http"}, "HTTP only"),
		Entry("the legacy transport", []string{"sse"}, "legacy HTTP+SSE only"),
		Entry("both HTTP transports", []string{"http", "sse"}, "HTTP and legacy HTTP+SSE only"),
	)
})
