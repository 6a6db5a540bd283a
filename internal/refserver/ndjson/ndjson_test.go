package ndjson_test

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/refserver/ndjson"
)

func TestNDJSON(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "ndjson Suite")
}

var _ = Describe("the reference servers' line reading", func() {
	It("drains a line over MaxLine without keeping it, and reads the next", func() {
		r := bufio.NewReaderSize(strings.NewReader(strings.Repeat("x", ndjson.MaxLine+10)+"\n{}\n"), 4096)
		line, tooLong, err := ndjson.ReadLine(r)
		Expect(err).NotTo(HaveOccurred())
		Expect(tooLong).To(BeTrue())
		Expect(line).To(BeEmpty())
		line, tooLong, err = ndjson.ReadLine(r)
		Expect(err).NotTo(HaveOccurred())
		Expect(tooLong).To(BeFalse())
		Expect(string(line)).To(Equal("{}"))
	})

	It("decodes exactly one JSON value, numbers as json.Number", func() {
		v, err := ndjson.Decode([]byte(`{"id": 12345678901234567890}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(HaveKeyWithValue("id", json.Number("12345678901234567890")))
		_, err = ndjson.Decode([]byte(`{} {}`))
		Expect(err).To(MatchError(ContainSubstring("after the JSON value")))
		_, err = ndjson.Decode([]byte(`{"a":`))
		Expect(err).To(HaveOccurred())
	})

	It("loops over the lines keep accepts, flushes after each, and stops with handle's code", func() {
		var got []string
		flushes := 0
		keep := func(line []byte, eof bool) bool { return len(line) > 0 }
		handle := func(line []byte, tooLong bool) (int, bool) {
			got = append(got, string(line))
			return 7, string(line) == "stop"
		}
		code := ndjson.Loop(strings.NewReader("a\n\nb\nstop\nnever\n"), keep, handle, func() { flushes++ }, false)
		Expect(code).To(Equal(7))
		Expect(got).To(Equal([]string{"a", "b", "stop"}))
		Expect(flushes).To(Equal(3))
		Expect(ndjson.Loop(strings.NewReader("last line without newline"), keep, func([]byte, bool) (int, bool) { return 0, false }, nil, false)).To(Equal(0))
	})
})
