package fuzz

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"pgregory.net/rapid"

	"github.com/wirecheck/wirecheck/internal/scenario"
)

// byteCopies is the malformations as they were built before they were
// built in one allocation (bytes, copied into the step's string): the
// baseline of BenchmarkMalformations and what the built lines must equal
// byte for byte, so a seed draws the same sequences as before.
var byteCopies = map[string]func(t *rapid.T, v []byte) []byte{
	"truncated": func(t *rapid.T, v []byte) []byte {
		cut := rapid.IntRange(1, max(1, len(v)-1)).Draw(t, "cut")
		return copyLine(v[:cut])
	},
	"invalid-utf8": func(t *rapid.T, v []byte) []byte {
		at := insideString(v)
		bad := rapid.SampledFrom([]string{"\xff", "\xc3\x28", "\xed\xa0\x80", "\xf0\x28\x8c\xbc"}).Draw(t, "bytes")
		return copyLine(splice(v, at, bad))
	},
	"non-object": func(t *rapid.T, _ []byte) []byte {
		return copyLine([]byte(rapid.SampledFrom([]string{"null", "[]", "42", `"tools/list"`, "true", "[{}]", "-0.5e3"}).Draw(t, "value")))
	},
	"deep-nesting": func(t *rapid.T, _ []byte) []byte {
		depth := rapid.SampledFrom([]int{64, 1000, 100000}).Draw(t, "depth")
		open, close := "[", "]"
		if rapid.Bool().Draw(t, "objects") {
			open, close = `{"a":`, "}"
		}
		return copyLine([]byte(strings.Repeat(open, depth) + "1" + strings.Repeat(close, depth)))
	},
	"huge-string": func(t *rapid.T, v []byte) []byte {
		n := rapid.SampledFrom([]int{70 << 10, 1 << 20}).Draw(t, "size")
		return copyLine(splice(v, insideString(v), strings.Repeat("x", n)))
	},
	"huge-number": func(t *rapid.T, v []byte) []byte {
		num := rapid.SampledFrom([]string{"1e999999", "123456789012345678901234567890123456789", "-0.0000000000000000000000000000001", "1" + strings.Repeat("0", 5000)}).Draw(t, "number")
		return copyLine([]byte(`{"id":` + num + `,"method":"x"}`))
	},
	"bom": func(_ *rapid.T, v []byte) []byte { return copyLine(append([]byte("\xef\xbb\xbf"), v...)) },
	"nul": func(t *rapid.T, v []byte) []byte {
		at := rapid.IntRange(0, len(v)).Draw(t, "at")
		return copyLine(splice(v, at, "\x00"))
	},
	"cr": func(_ *rapid.T, v []byte) []byte { return append(append([]byte{}, v...), '\r', '\n') },
	"long-garbage": func(t *rapid.T, _ []byte) []byte {
		return copyLine(bytes.Repeat([]byte(rapid.SampledFrom([]string{"a", "{", "\"", " "}).Draw(t, "fill")), longLine))
	},
	"two-on-a-line": func(_ *rapid.T, v []byte) []byte { return copyLine(append(append(append([]byte{}, v...), ' '), v...)) },
	"whitespace": func(t *rapid.T, _ []byte) []byte {
		return []byte(rapid.SampledFrom([]string{" \n", "\t\n", "\r\n", " \t \n"}).Draw(t, "ws"))
	},
}

func stepLen(st scenario.Step) int {
	if st.SendRaw != nil {
		return len(*st.SendRaw)
	}
	return len(*st.SendBase64)
}

func copyLine(b []byte) []byte { return append(append([]byte{}, b...), '\n') }

func splice(b []byte, at int, s string) []byte {
	out := make([]byte, 0, len(b)+len(s))
	out = append(out, b[:at]...)
	out = append(out, s...)
	return append(out, b[at:]...)
}

// malformed draws one malformation's line from seed: the same draws give
// the same line whichever way it is built. (The first draw only makes
// rapid take the malformations that draw nothing.)
func malformed(seed int, v []byte, built func(t *rapid.T, v []byte) string) string {
	return rapid.Custom(func(t *rapid.T) string {
		_ = rapid.Bool().Draw(t, "any")
		return built(t, v)
	}).Example(seed)
}

var _ = Describe("malformed lines", func() {
	It("are byte for byte the lines the copying construction made, for the same draws", func() {
		reqs := [][]byte{[]byte(`{"id":"f1","method":"tools/list"}`), []byte(`{"method":"x","params":{"a":"b"}}`), []byte(`[1]`), []byte(`"s"`)}
		for _, m := range malformations {
			old := byteCopies[m.name]
			Expect(old).NotTo(BeNil(), m.name)
			for seed := range 40 {
				for _, v := range reqs {
					want := malformed(seed, v, func(t *rapid.T, v []byte) string { return string(old(t, v)) })
					Expect(malformed(seed, v, m.make)).To(Equal(want), "%s, seed %d, request %s", m.name, seed, v)
				}
			}
		}
	})
})

// BenchmarkMalformations builds every malformation's largest line (the
// seeds that draw them) and turns it into its step, the way the bytes
// action does, against the copying construction it replaced, alternating
// in one run. Metrics: x-before, the time of one build over the old one's
// (at most 1 is the point), and the bytes each allocates.
func BenchmarkMalformations(b *testing.B) {
	v := []byte(`{"method":"tools/list","params":{"cursor":"c"}}`)
	type job struct {
		seed int
		make func(t *rapid.T, v []byte) string
		old  func(t *rapid.T, v []byte) []byte
	}
	var jobs []job
	for _, m := range malformations {
		// The seed whose line is the longest: the case that costs.
		best, bestLen := 0, -1
		for seed := range 64 {
			if n := len(malformed(seed, v, m.make)); n > bestLen {
				best, bestLen = seed, n
			}
		}
		jobs = append(jobs, job{best, m.make, byteCopies[m.name]})
	}
	var newT, oldT time.Duration
	var sink int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, j := range jobs {
			start := time.Now()
			st := rawStep(malformed(j.seed, v, j.make))
			newT += time.Since(start)
			start = time.Now()
			old := malformed(j.seed, v, func(t *rapid.T, v []byte) string { return string(j.old(t, v)) })
			st2 := rawStep(old)
			oldT += time.Since(start)
			sink += stepLen(st) + stepLen(st2)
		}
	}
	b.StopTimer()
	if sink == 0 {
		b.Fatal("nothing built")
	}
	b.ReportMetric(float64(newT)/float64(oldT), "x-before")
	b.ReportMetric(float64(newT.Microseconds())/float64(b.N), "µs/all")
	b.ReportMetric(float64(oldT.Microseconds())/float64(b.N), "before-µs/all")
	b.ReportMetric(float64(allocated(func() {
		for _, j := range jobs {
			_ = rawStep(malformed(j.seed, v, j.make))
		}
	})), "B/all")
	b.ReportMetric(float64(allocated(func() {
		for _, j := range jobs {
			_ = rawStep(malformed(j.seed, v, func(t *rapid.T, v []byte) string { return string(j.old(t, v)) }))
		}
	})), "before-B/all")
}

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}
