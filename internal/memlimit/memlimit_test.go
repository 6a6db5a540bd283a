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
	// debug.SetMemoryLimit(-1) reads the limit without changing it, and
	// SetGCPercent returns the pace it replaces.
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	percent := func() int {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	AfterEach(func() {
		debug.SetMemoryLimit(math.MaxInt64)
		debug.SetGCPercent(100)
	})

	It("is left alone in a test binary and when the user set GOMEMLIMIT", func() {
		debug.SetMemoryLimit(math.MaxInt64)
		Expect(memlimit.Set()).To(BeFalse())
		Expect(memlimit.SetFor("1GiB", "", false)).To(BeFalse())
		Expect(memlimit.SetFor("", "", true)).To(BeFalse())
		Expect(limit()).To(Equal(int64(math.MaxInt64)))
	})
	It("is set for wirecheck itself, with its pace", func() {
		Expect(memlimit.SetFor("", "", false)).To(BeTrue())
		Expect(limit()).To(Equal(int64(memlimit.Floor)))
		Expect(percent()).To(Equal(memlimit.Percent))
	})
	It("leaves the pace to the user who set GOGC", func() {
		Expect(memlimit.SetFor("", "100", false)).To(BeTrue())
		Expect(percent()).To(Equal(100))
	})
	It("follows a live heap that outgrows it, as GOGC 100 would pace it", func() {
		Expect(memlimit.Follow(3 << 20)).To(Equal(int64(memlimit.Floor)))
		Expect(memlimit.Follow(20 << 20)).To(Equal(int64(40 << 20)))
		// Past the ceiling it is a backstop again (floods, huge frames).
		Expect(memlimit.Follow(400 << 20)).To(Equal(int64(memlimit.Ceiling)))
	})
})
