package procs_test

import (
	"runtime"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/procs"
)

func TestProcs(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "procs")
}

var _ = Describe("the threads of a judging command", func() {
	var before int
	BeforeEach(func() { before = runtime.GOMAXPROCS(0) })
	AfterEach(func() { runtime.GOMAXPROCS(before) })

	It("are one", func() {
		runtime.GOMAXPROCS(2)
		Expect(procs.ForJudgingWith("", false)).To(BeTrue())
		Expect(runtime.GOMAXPROCS(0)).To(Equal(1))
	})
	It("are left alone when the user set GOMAXPROCS, and in a test binary", func() {
		runtime.GOMAXPROCS(2)
		Expect(procs.ForJudgingWith("4", false)).To(BeFalse())
		Expect(procs.ForJudgingWith("", true)).To(BeFalse())
		Expect(procs.ForJudging()).To(BeFalse(), "this is a test binary")
		Expect(runtime.GOMAXPROCS(0)).To(Equal(2))
	})
})
