package profiling_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/profiling"
)

func TestProfiling(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "profiling")
}

var _ = Describe("the profiles", func() {
	It("are written where the environment asks, and a path that cannot be written is said, not fatal", func() {
		dir := GinkgoT().TempDir()
		cpu, mem := filepath.Join(dir, "cpu.out"), filepath.Join(dir, "mem.out")
		GinkgoT().Setenv(profiling.CPUEnv, cpu)
		GinkgoT().Setenv(profiling.MemEnv, mem)
		var stderr bytes.Buffer
		profiling.Start(&stderr)()
		Expect(stderr.String()).To(BeEmpty())
		for _, f := range []string{cpu, mem} {
			st, err := os.Stat(f)
			Expect(err).NotTo(HaveOccurred())
			Expect(st.Size()).To(BeNumerically(">", 0))
		}

		GinkgoT().Setenv(profiling.CPUEnv, filepath.Join(dir, "no", "such", "cpu.out"))
		GinkgoT().Setenv(profiling.MemEnv, "")
		profiling.Start(&stderr)()
		Expect(stderr.String()).To(ContainSubstring(profiling.CPUEnv))
	})
})
