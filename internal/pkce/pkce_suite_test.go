package pkce_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestPKCE(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "PKCE Suite")
}
