package transcript_test

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/transcript"
	"pgregory.net/rapid"
)

func TestTranscript(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "transcript Suite")
}

var _ = Describe("the recorder", func() {
	It("numbers lines, tags them with the scenario and cuts a frame over MaxEntryBytes", func() {
		r := transcript.NewRecorder()
		r.SetScenario("s1")
		Expect(r.Add(transcript.Sent, []byte(`{"id":1}`))).To(Equal(0))
		Expect(r.Add(transcript.Received, []byte(strings.Repeat("x", transcript.MaxEntryBytes+5)))).To(Equal(1))
		es := r.Slice(0, -1)
		Expect(es).To(HaveLen(2))
		Expect(es[0].Scenario).To(Equal("s1"))
		Expect(es[1].Truncated).To(Equal(5))
		Expect(es[1].Text).To(HaveLen(transcript.MaxEntryBytes))
	})

	It("holds little more than its lines when it keeps a few (a run against a running server has a recorder per scenario)", func() {
		// Allocated bytes, not time: 200 recorders of 3 short lines each.
		// A whole chunk up front cost 72 KiB a recorder, some 14 MiB here.
		b := transcript.NewBudget(transcript.MaxEntries, transcript.MaxBytes)
		keep := make([]*transcript.Recorder, 200)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range keep {
			keep[i] = transcript.NewRecorderAt(time.Now(), b)
			for range 3 {
				keep[i].Add(transcript.Sent, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			}
		}
		runtime.ReadMemStats(&after)
		Expect(after.TotalAlloc - before.TotalAlloc).To(BeNumerically("<", 1<<20))
		Expect(keep[199].Slice(0, -1)).To(HaveLen(3))
	})

	It("keeps lines in order across chunks as they grow", func() {
		r := transcript.NewRecorder()
		for i := range 2500 {
			Expect(r.Add(transcript.Sent, []byte(strconv.Itoa(i)))).To(Equal(i))
		}
		es := r.Slice(1000, 2100)
		Expect(es).To(HaveLen(1100))
		for i, e := range es {
			Expect(e.Text).To(Equal(strconv.Itoa(1000 + i)))
		}
	})

	It("keeps, across the recorders sharing a budget, no more lines or bytes than it allows, and counts what it dropped", func() {
		start := time.Now()
		b := transcript.NewBudget(3, 1<<20).WithScenarioCap(1 << 20)
		one, two := transcript.NewRecorderAt(start, b), transcript.NewRecorderAt(start, b)
		Expect(one.Add(transcript.Sent, []byte("a"))).To(Equal(0))
		Expect(two.Add(transcript.Sent, []byte("b"))).To(Equal(0))
		Expect(one.Add(transcript.Sent, []byte("c"))).To(Equal(1))
		Expect(two.Add(transcript.Sent, []byte("d"))).To(Equal(-1), "the budget's three lines are used")
		Expect(two.Dropped()).To(Equal(1))

		// Each line costs its text and LineOverhead.
		big := transcript.NewRecorderAt(start, transcript.NewBudget(100, 2*transcript.LineOverhead+10).WithScenarioCap(1<<20))
		Expect(big.Add(transcript.Received, []byte("12345678"))).To(Equal(0))
		Expect(big.Add(transcript.Received, []byte("123"))).To(Equal(-1), "11 bytes of text would pass the 10 allowed")
		Expect(big.Add(transcript.Received, []byte("12"))).To(Equal(1))
		Expect(big.Dropped()).To(Equal(1))
	})

	It("keeps a scenario's flood to its share, saying so once, and the next scenario's lines and its stdout as before", func() {
		line := []byte(strings.Repeat("f", 100-transcript.LineOverhead+100)) // costs 200
		r := transcript.NewRecorderAt(time.Now(), transcript.NewBudget(1000, 1<<20).WithScenarioCap(1000))
		r.SetScenario("flood")
		for range 100 {
			r.Add(transcript.Stderr, line)
		}
		Expect(r.Add(transcript.Received, line)).NotTo(Equal(-1), "stderr has a share of its own")
		r.SetScenario("next")
		Expect(r.Add(transcript.Stderr, line)).NotTo(Equal(-1))
		es := r.Slice(0, -1)
		var stderr, notes int
		for _, e := range es {
			switch e.Dir {
			case transcript.Stderr:
				stderr++
			case transcript.Note:
				notes++
				Expect(e.Text).To(ContainSubstring("the stderr lines of this scenario reached the 1000 bytes a scenario may keep; later ones are counted, not kept"))
				Expect(e.Scenario).To(Equal("flood"))
			}
		}
		Expect(stderr).To(Equal(1000/200 + 1))
		Expect(notes).To(Equal(1))
		Expect(r.Dropped()).To(Equal(95))
	})

	It("keeps the harness's notes when the budget is spent", func() {
		r := transcript.NewRecorderAt(time.Now(), transcript.NewBudget(2, 1<<20).WithScenarioCap(1<<20))
		r.Add(transcript.Received, []byte("a"))
		r.Add(transcript.Received, []byte("b"))
		Expect(r.Add(transcript.Received, []byte("c"))).To(Equal(-1))
		Expect(r.Add(transcript.Note, []byte("the server exited"))).To(Equal(2))
	})

	It("slices across its chunks as one slice would", func() {
		rapid.Check(GinkgoT(), func(t *rapid.T) {
			r := transcript.NewRecorder()
			n := rapid.IntRange(0, 5000).Draw(t, "n")
			for i := range n {
				r.Add(transcript.Received, []byte(strconv.Itoa(i)))
			}
			Expect(r.Len()).To(Equal(n))
			from := rapid.IntRange(-2, n+2).Draw(t, "from")
			to := rapid.IntRange(-2, n+2).Draw(t, "to")
			want := []string{}
			lo, hi := max(from, 0), to
			if hi < 0 || hi > n {
				hi = n
			}
			for i := lo; i < hi; i++ {
				want = append(want, strconv.Itoa(i))
			}
			got := []string{}
			for i, e := range r.Slice(from, to) {
				Expect(e.Seq).To(Equal(lo + i))
				got = append(got, e.Text)
			}
			Expect(got).To(Equal(want))
		})
	})

	DescribeTable("holds, flooded by lines of any length, little more memory than MaxBytes",
		func(size int) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			b := transcript.NewBudget(transcript.MaxEntries, transcript.MaxBytes)
			line := []byte(strings.Repeat("x", size))
			var recs []*transcript.Recorder
			for lane := range 8 {
				r := transcript.NewRecorderAt(time.Now(), b)
				recs = append(recs, r)
				for s := range 4 {
					r.SetScenario(fmt.Sprintf("s%d-%d", lane, s))
					for range 8000 {
						r.Add(transcript.Received, line)
					}
				}
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			Expect(recs[7].Dropped()).To(BeNumerically(">", 0), "the flood must pass the cap")
			grew := int64(after.HeapInuse) - int64(before.HeapInuse)
			Expect(grew).To(BeNumerically("<", transcript.MaxBytes*11/10), "%d MiB", grew>>20)
			runtime.KeepAlive(recs)
		},
		Entry("empty lines", 0),
		Entry("short lines", 25),
		Entry("lines of 1 KiB", 1000),
		Entry("lines past MaxEntryBytes", 100_000),
	)
})
