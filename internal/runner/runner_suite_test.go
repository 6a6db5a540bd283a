package runner_test

import (
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestMain(m *testing.M) {
	if d, err := time.ParseDuration(os.Getenv(spinEnv)); err == nil {
		os.Exit(spin(d))
	}
	if which, ok := isTestServer(); ok {
		os.Exit(serveTest(which))
	}
	os.Exit(m.Run())
}

func TestRunner(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "runner suite")
}
