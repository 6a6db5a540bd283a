package officialsuite_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestOfficialsuite(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Officialsuite")
}
