package httpmcp_test

import (
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gleak"
)

func TestHTTPMCP(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "HTTP MCP Transport Suite")
}

// No spec may leave a goroutine behind: once Close returns nothing of the
// transport runs, and every test server is closed. Registered first, this
// cleanup runs last.
var _ = BeforeEach(func() {
	before := gleak.Goroutines()
	DeferCleanup(func() {
		Eventually(gleak.Goroutines).WithTimeout(5 * time.Second).
			ShouldNot(gleak.HaveLeaked(before))
	})
})
