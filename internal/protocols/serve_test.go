package protocols_test

import (
	"bytes"
	"cmp"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

var _ = Describe("what serve asks of a reference server (Choice)", func() {
	p, err := protocols.LoadSpec("sonde-serve")

	check := func(c protocols.Choice) (bool, string, error) {
		Expect(err).NotTo(HaveOccurred())
		var out bytes.Buffer
		c.Transport = cmp.Or(c.Transport, "stdio")
		listed, err := c.Check(p, &out)
		return listed, out.String(), err
	}

	It("accepts the faults and variants the spec defines", func() {
		listed, out, err := check(protocols.Choice{Faults: []string{p.Faults[0].Name}, Variants: []string{p.Variants[0].Name}})
		Expect(err).NotTo(HaveOccurred())
		Expect(listed).To(BeFalse())
		Expect(out).To(BeEmpty())
	})

	It("lists every fault with the rules it trips, or every variant with why it is legal, for 'list'", func() {
		listed, out, err := check(protocols.Choice{Faults: []string{"list"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(listed).To(BeTrue())
		Expect(out).To(HavePrefix("FAULT "))
		Expect(strings.Count(out, "\n")).To(Equal(len(p.Faults) + 1))
		Expect(out).To(ContainSubstring(p.Faults[0].Trips[0]))
		listed, out, _ = check(protocols.Choice{Variants: []string{"list"}})
		Expect(listed).To(BeTrue())
		Expect(out).To(HavePrefix("VARIANT "))
		Expect(out).To(ContainSubstring(p.Variants[0].Why))
	})

	It("refuses, in the order of the flags, an unknown fault or variant (naming those known), a transport it does not serve and --listen", func() {
		_, _, err := check(protocols.Choice{Faults: []string{"nope", "list"}})
		Expect(err).To(MatchError(And(HavePrefix(`unknown fault "nope" for sonde-serve (known: `+p.Faults[0].Name), HaveSuffix("'--fault list' describes them)"))))
		_, _, err = check(protocols.Choice{Variants: []string{"nope"}})
		Expect(err).To(MatchError(HavePrefix(`unknown variant "nope" for sonde-serve (known: ` + p.Variants[0].Name)))
		_, _, err = check(protocols.Choice{Transport: "http"})
		Expect(err).To(MatchError(`--transport "http": the sonde-serve reference server serves stdio`))
		_, _, err = check(protocols.Choice{Listen: ":1", Faults: []string{"list"}})
		Expect(err).To(MatchError("--listen applies to HTTP transports; sonde-serve is served on stdio"))
	})
})

var _ = Describe("what serve asks of a reference server over HTTP (Choice)", func() {
	It("takes a transport the protocol lists with a host:port, and refuses one without", func() {
		p, err := protocols.LoadSpec("mcp")
		Expect(err).NotTo(HaveOccurred())
		var out bytes.Buffer
		_, err = protocols.Choice{Transport: "http", Listen: "127.0.0.1:0"}.Check(p, &out)
		Expect(err).NotTo(HaveOccurred())
		_, err = protocols.Choice{Transport: "sse", Listen: ":8080"}.Check(p, &out)
		Expect(err).NotTo(HaveOccurred())
		_, err = protocols.Choice{Transport: "http"}.Check(p, &out)
		Expect(err).To(MatchError(HavePrefix(`--http "": want an address to listen on, host:port`)))
		_, err = protocols.Choice{SSE: ":8080"}.Check(p, &out)
		Expect(err).NotTo(HaveOccurred(), "--sse ADDR is --transport sse --listen ADDR")
		_, err = protocols.Choice{HTTP: ":1", Transport: "stdio"}.Check(p, &out)
		Expect(err).To(MatchError("--http: give one of --http, --sse and --transport/--listen"))
		_, err = protocols.Choice{HTTP: ":1", SSE: ":2"}.Check(p, &out)
		Expect(err).To(MatchError("--http: give one of --http, --sse and --transport/--listen"))
		_, err = protocols.Choice{Transport: "ws", Listen: ":1"}.Check(p, &out)
		Expect(err).To(MatchError(`--transport "ws": the mcp reference server serves stdio, http, sse`))
	})
})

var _ = Describe("the protocols table", func() {
	It("has a row of every protocol with its rule counts by level", func() {
		var out bytes.Buffer
		Expect(protocols.WriteTable(&out)).To(Succeed())
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		Expect(lines).To(HaveLen(len(protocols.IDs()) + 1))
		Expect(strings.Fields(lines[0])).To(Equal([]string{"PROTOCOL", "TRANSPORTS", "RULES", "MUST", "SHOULD", "MAY", "SCENARIOS", "SOURCE"}))
		b, err := protocols.Load("sonde-serve")
		Expect(err).NotTo(HaveOccurred())
		for _, l := range lines[1:] {
			if f := strings.Fields(l); f[0] == "sonde-serve" {
				Expect(f[2]).To(Equal(strconv.Itoa(len(b.Protocol.Rules))))
				Expect(f[6]).To(Equal(strconv.Itoa(len(b.Scenarios))))
			}
		}
	})
})

var _ = Describe("serving a reference server as asked (Serve)", func() {
	serve := func(id string, c protocols.Choice) (int, string, string, error) {
		var out, log bytes.Buffer
		c.Transport = cmp.Or(c.Transport, "stdio")
		code, err := protocols.Serve(id, c, protocols.ServeOptions{In: strings.NewReader(""), Out: &out, Log: &log, Dir: GinkgoT().TempDir()})
		return code, out.String(), log.String(), err
	}

	It("serves with the faults and variants chosen until its input ends", func() {
		code, out, log, err := serve("sonde-serve", protocols.Choice{Faults: []string{"wrong-id"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(0))
		Expect(out).To(ContainSubstring(`"status":"ready"`))
		Expect(log).To(ContainSubstring("faults [wrong-id]"))
	})

	It("writes a list instead of serving, and refuses an unknown protocol or fault", func() {
		code, out, _, err := serve("sonde-serve", protocols.Choice{Faults: []string{"list"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(code).To(Equal(0))
		Expect(out).To(HavePrefix("FAULT "))
		_, _, _, err = serve("nope", protocols.Choice{})
		Expect(err).To(MatchError(HavePrefix(`unknown protocol "nope"`)))
		_, out, _, err = serve("sonde-serve", protocols.Choice{Faults: []string{"nope"}})
		Expect(err).To(MatchError(HavePrefix(`unknown fault "nope"`)))
		Expect(out).To(BeEmpty())
	})
})

var _ = Describe("the rule catalogue", func() {
	It("writes one protocol's rules, or every protocol's", func() {
		var one, all bytes.Buffer
		Expect(protocols.WriteCatalogue(&one, "text", "sonde-serve")).To(Succeed())
		Expect(protocols.WriteCatalogue(&all, "text", "")).To(Succeed())
		Expect(one.String()).To(ContainSubstring("SONDE-ID-1"))
		Expect(one.String()).NotTo(ContainSubstring("MCP-"))
		Expect(all.String()).To(ContainSubstring("SONDE-ID-1"))
		Expect(all.String()).To(ContainSubstring("MCP-"))
		Expect(protocols.WriteCatalogue(&one, "text", "nope")).To(MatchError(HavePrefix(`unknown protocol "nope"`)))
	})
})

var _ = Describe("serve's quick check of a choice (from the spec's transports, faults and variants alone)", func() {
	It("passes exactly the choices Check passes against the whole spec, of every protocol", func() {
		for _, id := range protocols.IDs() {
			p, err := protocols.LoadSpec(id)
			Expect(err).NotTo(HaveOccurred())
			var choices []protocols.Choice
			for _, tr := range append([]string{"", "stdio", "http", "sse", "ws"}, p.Transports...) {
				c := protocols.Choice{Transport: tr}
				if tr == "http" || tr == "sse" {
					c.Listen = "127.0.0.1:0"
				}
				choices = append(choices, c)
			}
			// Every fault and every variant, in one choice (Check asks
			// each in turn), over the protocol's first transport.
			all := protocols.Choice{Transport: p.Transports[0]}
			if all.Transport != "stdio" {
				all.Listen = "127.0.0.1:0"
			}
			for _, f := range p.Faults {
				all.Faults = append(all.Faults, f.Name)
			}
			for _, v := range p.Variants {
				all.Variants = append(all.Variants, v.Name)
			}
			choices = append(choices, all,
				protocols.Choice{Faults: []string{"list"}}, protocols.Choice{Variants: []string{"list"}},
				protocols.Choice{Faults: []string{"no-such-fault"}}, protocols.Choice{Variants: []string{"no-such-variant"}},
				protocols.Choice{Listen: "127.0.0.1:0"})
			for _, c := range choices {
				listed, err := c.Check(p, &bytes.Buffer{})
				Expect(protocols.Servable(id, c)).To(Equal(!listed && err == nil), "%s %+v: %v", id, c, err)
			}
			// The reference server's every fault and variant takes the quick way.
			Expect(protocols.Servable(id, all)).To(BeTrue(), id)
		}
	})
})
