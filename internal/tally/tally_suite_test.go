package tally_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestTally(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "tally suite")
}
