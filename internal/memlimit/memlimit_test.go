package memlimit_test

import (
	"math"
	"runtime/debug"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/memlimit"
)

func TestMemlimit(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "memlimit")
}

var _ = Describe("the soft memory limit", func() {
	// debug.SetMemoryLimit(-1) reads the limit without changing it.
	limit := func() int64 { return debug.SetMemoryLimit(-1) }

	AfterEach(func() { debug.SetMemoryLimit(math.MaxInt64) })

	It("is left alone in a test binary and when the user set GOMEMLIMIT", func() {
		debug.SetMemoryLimit(math.MaxInt64)
		Expect(memlimit.Set()).To(BeFalse())
		Expect(memlimit.SetFor("1GiB", false)).To(BeFalse())
		Expect(memlimit.SetFor("", true)).To(BeFalse())
		Expect(limit()).To(Equal(int64(math.MaxInt64)))
	})

	It("is set for wirecheck itself", func() {
		Expect(memlimit.SetFor("", false)).To(BeTrue())
		Expect(limit()).To(Equal(int64(memlimit.Limit)))
	})
})
