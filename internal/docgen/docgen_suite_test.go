package docgen_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestDocgen(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "docgen Suite")
}
