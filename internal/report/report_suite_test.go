package report_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden from the current output")

func TestReport(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Report Suite")
}

// expectGolden compares out with testdata/golden/name, or rewrites the file
// when the suite runs with -update.
func expectGolden(name string, out []byte) {
	GinkgoHelper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
		Expect(os.WriteFile(path, out, 0o644)).To(Succeed())
		return
	}
	want, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred(), "golden file missing; run go test ./internal/report/ -update")
	Expect(string(out)).To(Equal(string(want)), "output differs from %s; if the change is intended, run go test ./internal/report/ -update", path)
}
