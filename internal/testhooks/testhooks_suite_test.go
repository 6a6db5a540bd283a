package testhooks_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestTesthooks(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Testhooks Suite")
}
