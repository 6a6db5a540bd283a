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
