package protocols_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/testbin"
)

func TestProtocols(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, suiteDescription)
}

var _ = AfterSuite(func() {
	writeVerdicts()
	testbin.Cleanup()
})
