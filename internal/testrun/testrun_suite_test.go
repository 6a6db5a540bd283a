package testrun_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestTestrun(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "testrun Suite")
}
