package target

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the free port of a launch", func() {
	It("is never handed out twice by one process, so lanes launching at once do not share one", func() {
		seen := map[int]bool{}
		for range 300 {
			p, err := freePort()
			Expect(err).NotTo(HaveOccurred())
			Expect(seen).NotTo(HaveKey(p))
			seen[p] = true
		}
	})
})
