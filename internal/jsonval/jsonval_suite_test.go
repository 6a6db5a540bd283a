package jsonval_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestJSONVal(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "jsonval Suite")
}
