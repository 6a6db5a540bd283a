package testbin

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestTestbin(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "testbin Suite")
}
