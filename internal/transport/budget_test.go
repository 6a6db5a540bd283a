package transport

import (
	"bytes"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the budget of frames being read", func() {
	It("lets one reader alone past it, makes the next wait until bytes come back, and lets an abort end the wait", func() {
		b := NewBudget(10)
		Expect(b.take(25, nil)).To(BeTrue(), "alone, a reader gets what it asks: a raised cap still works")
		got := make(chan bool)
		go func() { got <- b.take(5, nil) }()
		Consistently(got).ShouldNot(Receive(), "the budget is held")
		b.give(25)
		Eventually(got).Should(Receive(BeTrue()))
		abort := make(chan struct{})
		go func() { got <- b.take(20, abort) }()
		Consistently(got).ShouldNot(Receive())
		close(abort)
		Eventually(got).Should(Receive(BeFalse()))
		Expect(b.Used()).To(Equal(int64(5)))
	})

	It("reads a frame whole within the cap, keeps evidence of one over it, and gives back what it charged", func() {
		body := strings.Repeat("x", 3<<20)
		b, n, over, release, err := ReadFrame(strings.NewReader(body), 4<<20, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(over).To(BeFalse())
		Expect(n).To(Equal(len(body)))
		Expect(string(b)).To(Equal(body))
		Expect(frames.Used()).To(BeNumerically(">", 0))
		release()
		Expect(frames.Used()).To(BeZero())

		b, n, over, release, err = ReadFrame(bytes.NewReader(make([]byte, 5<<20)), 4<<20, nil)
		release()
		Expect(err).NotTo(HaveOccurred())
		Expect(over).To(BeTrue())
		Expect(n).To(BeNumerically(">", 4<<20))
		Expect(b).To(HaveLen(OversizeEvidence))
		Expect(frames.Used()).To(BeZero())
	})
})
