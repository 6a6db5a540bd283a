package protocols_test

import (
	"os"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/schema"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// A wait the MCP pages do not bound ("within a reasonable time") names
// its default and the flag that sets it.
var _ = Describe("MCP-STDIO-4's wait", func() {
	run := func(params map[string]string) *report.Report {
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Faults: []string{"ignore-eof"}}, runner.Config{
			Timeout:        timeout,
			StartupTimeout: startupTimeout,
			Params:         params,
			Rules:          []string{"MCP-STDIO-4"},
		})
		Expect(err).NotTo(HaveOccurred())
		return rep
	}
	failure := func(rep *report.Report) string {
		for _, f := range rep.Findings {
			if f.Rule == "MCP-STDIO-4" && f.Verdict == verdict.Fail {
				return f.Message
			}
		}
		return ""
	}

	It("says the 2 s are wirecheck's default and names --param mcp-exit-wait", func() {
		msg := failure(run(nil))
		Expect(msg).To(ContainSubstring("2s after its stdin closed"))
		Expect(msg).To(ContainSubstring("wirecheck's default"))
		Expect(msg).To(ContainSubstring("--param mcp-exit-wait=DURATION"))
	})

	It("waits as long as --param mcp-exit-wait says", func() {
		msg := failure(run(map[string]string{"mcp-exit-wait": "300ms"}))
		Expect(msg).To(ContainSubstring("300ms after its stdin closed (--param mcp-exit-wait)"))
	})
})

// Never MUST from silence: a MUST rule of the protocols whose documents
// speak RFC 2119 (MCP's pages for servers and clients, the OAuth RFCs
// mcp-authorization cites) quotes a MUST, MUST NOT, REQUIRED or SHALL, or,
// in mcp, the schema the pages make normative ("the source of truth for
// all protocol messages and structures"). The seed protocols' documents
// have no keywords: docs/silence.md rules their levels. A keyword in the
// quote is not proof that it binds the rule's party (MCP-TASKEXT-15
// quotes the client's MUST, and is SHOULD): specs' comments say why.
var _ = Describe("the levels of the mcp rules", func() {
	keyword := regexp.MustCompile(`(^|[^A-Za-z])(MUST|REQUIRED|SHALL)([^A-Za-z]|$)`)
	for _, id := range []string{"mcp", "mcp-client", "mcp-authorization"} {
		It("rest a MUST of "+id+" on a sentence with a keyword or on the schema, never on silence", func() {
			b, err := protocols.Load(id)
			Expect(err).NotTo(HaveOccurred())
			musts := 0
			for _, r := range b.Protocol.Rules {
				if r.Level != verdict.Must {
					continue
				}
				musts++
				if id == "mcp" && strings.Contains(r.Quote, "source of truth") {
					continue
				}
				Expect(keyword.MatchString(r.Quote)).To(BeTrue(), "rule %s of %s is MUST but quotes no MUST, REQUIRED or SHALL: %q", r.ID, id, r.Quote)
				Expect(r.Quote).NotTo(ContainSubstring("(silent"), "rule %s is MUST but drawn from silence", r.ID)
				Expect(r.Quote).NotTo(ContainSubstring("(no keyword"), "rule %s is MUST but says its sentence has no keyword", r.ID)
			}
			Expect(musts).To(BeNumerically(">", 5))
		})
	}

	It("list every rule drawn from silence or from a sentence without keyword in docs/silence.md", func() {
		b, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		doc, err := os.ReadFile("../../docs/silence.md")
		Expect(err).NotTo(HaveOccurred())
		_, section, _ := strings.Cut(string(doc), "### mcp")
		Expect(section).NotTo(BeEmpty())
		for _, r := range b.Protocol.Rules {
			if strings.Contains(r.Quote, "silent") || strings.Contains(r.Quote, "no keyword") {
				Expect(section).To(ContainSubstring("| "+r.ID+" |"), "rule %s is drawn from silence: docs/silence.md lists it with the readings it accepts", r.ID)
			}
		}
	})
})

// An answer to a request whose id is neither a string nor an integer may
// echo the id (JSON-RPC 2.0 §5: "It MUST be the same as the value of the
// id member in the Request Object") or say null: MCP-JSONRPC-4 passes
// both, and still judges the error itself.
var _ = Describe("the mcp error response", func() {
	b, err := protocols.Load("mcp")
	It("loads", func() { Expect(err).NotTo(HaveOccurred()) })
	if err != nil {
		return
	}
	for _, v := range b.Protocol.Versions.IDs() {
		DescribeTable("in "+v,
			func(frame string, ok bool) {
				p, err := b.Protocol.ForVersion(v)
				Expect(err).NotTo(HaveOccurred())
				k := p.Kind("error response")
				Expect(k).NotTo(BeNil())
				s := b.Schemas.Get(k.Schema)
				Expect(s).NotTo(BeNil(), k.Schema)
				val, err := schema.Decode([]byte(frame))
				Expect(err).NotTo(HaveOccurred())
				if ok {
					Expect(s.Validate(val)).To(Succeed())
				} else {
					Expect(s.Validate(val)).NotTo(Succeed())
				}
			},
			Entry("a string id", `{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"Method not found"}}`, true),
			Entry("an id true echoed", `{"jsonrpc":"2.0","id":true,"error":{"code":-32600,"message":"Invalid Request"}}`, true),
			Entry("an object id echoed", `{"jsonrpc":"2.0","id":{"x":1},"error":{"code":-32600,"message":"Invalid Request"}}`, true),
			Entry("a code that is a string", `{"jsonrpc":"2.0","id":"a","error":{"code":"-32601","message":"Method not found"}}`, false),
			Entry("an echoed id with a code that is a string", `{"jsonrpc":"2.0","id":true,"error":{"code":"-32600","message":"Invalid Request"}}`, false),
			Entry("no message", `{"jsonrpc":"2.0","id":7,"error":{"code":-32600}}`, false),
		)
	}
})
