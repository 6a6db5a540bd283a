package fuzz_test

import (
	"encoding/json"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/testbin"
)

// Issue 26: fuzz runs its sequences on up to --jobs sessions side by side,
// and a seed still finds, shrinks and saves one failure whatever --jobs is
// and however the lanes interleave.
var _ = Describe("fuzz on several lanes", func() {
	// found is the first failure of a campaign against the reference
	// server with a fault that crashes it, as saved: the reproducer's file
	// name (a hash of its steps, rules and settings), its steps, and how
	// many steps it had as first found.
	found := func(jobs int) (string, string, int) {
		bin, err := testbin.Wirecheck()
		Expect(err).NotTo(HaveOccurred())
		c, bugs := sondeCampaign(append([]string{bin, "serve", "sonde-serve"}, faultArgs([]string{"exit-non-object"})...),
			fuzz.Config{Runs: 50, Seed: 42, ShrinkTime: time.Minute, MaxFailures: 1, Jobs: jobs})
		Expect(bugs).To(HaveLen(1))
		b := bugs[0]
		Expect(b.Stop).To(BeEmpty(), "shrinking finished (a cut-off shrink depends on the machine)")
		file, err := c.Save(b, GinkgoT().TempDir())
		Expect(err).NotTo(HaveOccurred())
		steps, err := json.Marshal(b.Steps)
		Expect(err).NotTo(HaveOccurred())
		return filepath.Base(file), string(steps), b.Found
	}

	It("saves the same reproducer of the same first failure with --jobs 1 and --jobs 2, run after run", func() {
		file1, steps1, found1 := found(1)
		for range 2 {
			file2, steps2, found2 := found(2)
			Expect(steps2).To(Equal(steps1))
			Expect(file2).To(Equal(file1))
			Expect(found2).To(Equal(found1), "the same sequence was found first")
		}
	})
})
