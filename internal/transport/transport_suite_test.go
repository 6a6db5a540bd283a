//go:build linux

package transport

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gleak"
)

func TestTransport(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Transport Suite")
}

// Every spec must leave no goroutine behind: the transport promises that
// once Close returns nothing of it runs. Registered first, this cleanup runs
// last, after the specs' own Close cleanups.
var _ = BeforeEach(func() {
	before := gleak.Goroutines()
	DeferCleanup(func() {
		Eventually(gleak.Goroutines).WithTimeout(3 * time.Second).
			ShouldNot(gleak.HaveLeaked(before))
	})
})
