package interrupt

import (
	"context"
	"os"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a run's signals", func() {
	It("cancel the run at the first, remembering which, and exit at once at the second", func() {
		ch := make(chan os.Signal, 2)
		exited := make(chan int, 1)
		ctx, w := watch(context.Background(), ch, func(code int) { exited <- code })
		defer w.Stop()
		sig, _ := w.Signal()
		Expect(sig).To(BeEmpty())

		ch <- syscall.SIGTERM
		Eventually(ctx.Done()).Should(BeClosed())
		sig, at := w.Signal()
		Expect(sig).To(Equal("SIGTERM"))
		Expect(at).NotTo(BeZero())
		Consistently(exited).ShouldNot(Receive())

		ch <- os.Interrupt
		Eventually(exited).Should(Receive(Equal(130)))
		sig, _ = w.Signal()
		Expect(sig).To(Equal("SIGTERM"), "the first signal is the one the report names")
	})

	It("name and number as a shell does", func() {
		Expect(Name(os.Interrupt)).To(Equal("SIGINT"))
		Expect(Name(syscall.SIGTERM)).To(Equal("SIGTERM"))
		Expect(Code(os.Interrupt)).To(Equal(130))
		Expect(Code(syscall.SIGTERM)).To(Equal(143))
	})

	It("leave the run alone once stopped", func() {
		ch := make(chan os.Signal, 1)
		ctx, w := watch(context.Background(), ch, func(int) { Fail("no exit after Stop") })
		w.Stop()
		Expect(ctx.Err()).To(HaveOccurred(), "Stop releases the context")
		sig, _ := w.Signal()
		Expect(sig).To(BeEmpty())
	})
})
