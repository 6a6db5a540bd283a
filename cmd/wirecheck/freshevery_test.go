package main

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("fuzz --fresh-every", func() {
	It("refuses fewer than one sequence per process, with exit 2", func() {
		code, _, errs := cli("", "fuzz", "--protocol", "sonde-serve", "--fresh-every", "0", "--", "true")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("--fresh-every must be at least 1"))
	})
})

var _ = Describe("fuzz --max-failures", func() {
	It("refuses a negative count, with exit 2", func() {
		code, _, errs := cli("", "fuzz", "--protocol", "sonde-serve", "--max-failures", "-1", "--", "true")
		Expect(code).To(Equal(2))
		Expect(errs).To(ContainSubstring("--max-failures -1: give 0 (no limit) or more"))
	})
})
