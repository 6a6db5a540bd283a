package protocols_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestProtocols(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, suiteDescription)
}

var _ = AfterSuite(writeVerdicts)
