package httpserve_test

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gleak"
)

func TestHTTPServe(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "MCP HTTP Server Transport Suite")
}

// No spec may leave a goroutine behind once its listener is closed.
var _ = BeforeEach(func() {
	before := gleak.Goroutines()
	DeferCleanup(func() {
		Eventually(gleak.Goroutines).WithTimeout(5 * time.Second).
			ShouldNot(gleak.HaveLeaked(before))
	})
})
