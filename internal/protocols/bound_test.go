package protocols_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
)

var _ = Describe("the --timeout of a table's run", func() {
	It("is the fault's or variant's timeout: where its spec entry sets one, else the tables' second", func() {
		b, err := protocols.Load("mcp")
		Expect(err).NotTo(HaveOccurred())
		own := 0
		for _, v := range b.Protocol.Variants {
			r := newRun(b, "variant", v.Name, v.Version)
			if d := v.RunTimeout(); d > 0 {
				own++
				Expect(r.bound(b)).To(Equal(d), v.Name)
				Expect(d).To(BeNumerically(">", timeout), "%s: a timeout: shorter than the tables' makes a run flakier, not safer", v.Name)
				continue
			}
			Expect(r.bound(b)).To(Equal(timeout), v.Name)
		}
		for _, f := range b.Protocol.Faults {
			want := timeout
			if d := f.RunTimeout(); d > 0 {
				want = d
			}
			Expect(faultRun(b, f.Name).bound(b)).To(Equal(want), f.Name)
		}
		Expect(own).To(BeNumerically(">", 0), "big-resource's 5 MB answer has its own")
		Expect(newRun(b, "suite", "", "").bound(b)).To(Equal(timeout))
	})
})
