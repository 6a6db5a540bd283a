package main

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestFaultbench(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Faultbench Suite")
}
