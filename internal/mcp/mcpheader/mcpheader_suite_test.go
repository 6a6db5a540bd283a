package mcpheader_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestMCPHeader(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "MCP request metadata headers Suite")
}
