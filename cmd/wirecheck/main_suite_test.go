package main

import (
	"bytes"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/testbin"
)

func TestWirecheck(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "wirecheck CLI Suite")
}

// cli runs the CLI in-process and returns its exit code and output.
func cli(stdin string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func bin() string {
	p, err := testbin.Wirecheck()
	Expect(err).NotTo(HaveOccurred())
	return p
}
