package mcpclient

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestMCPClientSuite(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "MCP client role scenarios Suite")
}
