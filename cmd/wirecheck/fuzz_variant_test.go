package main

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Issue 10, false alarm 6: a request whose id is neither string nor number
// (true, an object) answered with the id echoed as given failed
// SONDE-RESPONSE-1 (MUST) through the schema of answers to valid requests.
// Echoing it and answering id null are both reasonable.
var _ = Describe("wirecheck fuzz against a sonde-serve server that echoes ids of other types as given", func() {
	It("exits 0 with no failure (seed 10 draws such ids; 300 sequences)", func() {
		code, out, errs := cli("", "fuzz", "--protocol", "sonde-serve", "--runs", "300", "--seed", "10",
			"--save", GinkgoT().TempDir(), "--", bin(), "serve", "sonde-serve", "--variant", "odd-ids-echoed")
		Expect(code).To(Equal(0), out+errs)
		Expect(out).To(ContainSubstring("0 distinct failures"))
	})
})
