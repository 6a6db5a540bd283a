package transcript_test

import (
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/transcript"
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

	It("keeps, across the recorders sharing a budget, no more lines or bytes than it allows, and counts what it dropped", func() {
		start := time.Now()
		b := transcript.NewBudget(3, 1000)
		one, two := transcript.NewRecorderAt(start, b), transcript.NewRecorderAt(start, b)
		Expect(one.Add(transcript.Sent, []byte("a"))).To(Equal(0))
		Expect(two.Add(transcript.Sent, []byte("b"))).To(Equal(0))
		Expect(one.Add(transcript.Sent, []byte("c"))).To(Equal(1))
		Expect(two.Add(transcript.Sent, []byte("d"))).To(Equal(-1), "the budget's three lines are used")
		Expect(two.Dropped()).To(Equal(1))

		big := transcript.NewRecorderAt(start, transcript.NewBudget(100, 10))
		Expect(big.Add(transcript.Received, []byte("12345678"))).To(Equal(0))
		Expect(big.Add(transcript.Received, []byte("123"))).To(Equal(-1), "11 bytes would pass the 10 allowed")
		Expect(big.Add(transcript.Received, []byte("12"))).To(Equal(1))
		Expect(big.Dropped()).To(Equal(1))
	})
})
