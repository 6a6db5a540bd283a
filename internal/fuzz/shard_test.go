package fuzz_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/fuzz"
	"github.com/wirecheck/wirecheck/internal/shard"
)

var _ = Describe("a sharded campaign", func() {
	It("draws its batches from the whole campaign's seed chain, each batch in exactly one shard", func() {
		whole := fuzz.Seeds(42, shard.Shard{})
		var chain []uint64
		for range 12 {
			chain = append(chain, whole())
		}
		Expect(chain[0]).To(BeEquivalentTo(42), "the whole campaign starts at its seed, as before shards")
		for n := 1; n <= 4; n++ {
			var union []uint64
			for i := 1; i <= n; i++ {
				next := fuzz.Seeds(42, shard.Shard{Index: i, Count: n})
				for k := i - 1; k < len(chain); k += n {
					got := next()
					Expect(got).To(Equal(chain[k]), "shard %d/%d, batch %d", i, n, k)
					union = append(union, got)
				}
			}
			Expect(union).To(ConsistOf(chain))
		}
	})
})
