package shard_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/shard"
)

func TestShard(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Shard Suite")
}

var _ = Describe("a shard", func() {
	DescribeTable("is read from i/n",
		func(in string, want shard.Shard, bad bool) {
			s, err := shard.Parse(in)
			if bad {
				Expect(err).To(MatchError(ContainSubstring("want i/n with 1 ≤ i ≤ n")))
				return
			}
			Expect(err).NotTo(HaveOccurred())
			Expect(s).To(Equal(want))
		},
		Entry("none: the whole", "", shard.Shard{}, false),
		Entry("2/4", "2/4", shard.Shard{Index: 2, Count: 4}, false),
		Entry("1/1", "1/1", shard.Shard{Index: 1, Count: 1}, false),
		Entry("index 0", "0/4", shard.Shard{}, true),
		Entry("index past n", "5/4", shard.Shard{}, true),
		Entry("no slash", "2", shard.Shard{}, true),
		Entry("words", "a/b", shard.Shard{}, true),
	)

	It("partitions the work: every piece in exactly one shard, shares summing to the total", func() {
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			n := rapid.IntRange(1, 12).Draw(t, "n")
			total := rapid.IntRange(0, 200).Draw(t, "total")
			sum := 0
			for k := 0; k < total; k++ {
				owners := 0
				for i := 1; i <= n; i++ {
					if (shard.Shard{Index: i, Count: n}).Has(k) {
						owners++
					}
				}
				if owners != 1 {
					t.Fatalf("piece %d of %d has %d owners among %d shards", k, total, owners, n)
				}
			}
			for i := 1; i <= n; i++ {
				sum += shard.Shard{Index: i, Count: n}.Share(total)
			}
			if sum != total {
				t.Fatalf("shares of %d over %d shards sum to %d", total, n, sum)
			}
		})
	})
})
