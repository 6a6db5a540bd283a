package interrupt

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestInterrupt(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "interrupt Suite")
}
