package peer_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
)

// `wirecheck validate` judges frames from a file, without the requests
// they answer.
var _ = Describe("judging a lone frame", func() {
	It("takes an answer as the first of its kinds whose schemas accept it", func() {
		p, reg := miniProtocol()
		kind, problems := peer.JudgeLone(p, reg, []byte(`{"id":1,"result":"hi","v":1}`), nil)
		Expect(problems).To(BeEmpty())
		Expect(kind).To(Equal("echo result"))
		kind, problems = peer.JudgeLone(p, reg, []byte(`{"id":1,"result":{"n":2},"v":1}`), nil)
		Expect(problems).To(BeEmpty())
		Expect(kind).To(Equal("response"), "not an echo result, but an answer to something else")
	})

	It("names the rule each problem breaks, as the kind forced or the first kind found", func() {
		p, reg := miniProtocol()
		kind, problems := peer.JudgeLone(p, reg, []byte(`{"id":1,"result":{"n":2},"v":1}`), p.Kind("echo result"))
		Expect(kind).To(Equal("echo result"))
		Expect(problems).To(ConsistOf(HavePrefix("MINI-ECHO-1: echo result shape (")))
		kind, problems = peer.JudgeLone(p, reg, []byte(`{"id":1,"result":"hi","v":2}`), nil)
		Expect(kind).To(Equal("echo result"))
		Expect(problems).To(ConsistOf(HavePrefix("MINI-V-1: v is 1 on responses (")))
	})

	It("says what a line is not", func() {
		p, reg := miniProtocol()
		_, problems := peer.JudgeLone(p, reg, []byte(`{"id":`), nil)
		Expect(problems).To(ConsistOf(HavePrefix("not JSON: ")))
		_, problems = peer.JudgeLone(p, reg, []byte(`[1]`), nil)
		Expect(problems).To(ConsistOf("matches no message kind of mini"))
	})

	It("judges every line of a file, numbered, skipping blank ones", func() {
		p, reg := miniProtocol()
		var out bytes.Buffer
		n, bad, err := peer.JudgeLines(strings.NewReader("{\"method\":\"x\"}\n\n{\"id\":1,\"result\":\"hi\"}\n"), "f", p, reg, nil, &out)
		Expect(err).NotTo(HaveOccurred())
		Expect([]int{n, bad}).To(Equal([]int{2, 1}))
		Expect(out.String()).To(HavePrefix("f:1: ok (notification)\nf:3: MINI-V-1: "))
	})

	It("judges a file, or stdin when none is named, as a kind named, and counts the valid and invalid lines", func() {
		p, reg := miniProtocol()
		file := filepath.Join(GinkgoT().TempDir(), "frames.jsonl")
		Expect(os.WriteFile(file, []byte("{\"id\":1,\"result\":\"hi\",\"v\":1}\n{\"id\":1,\"result\":\"hi\",\"v\":2}\n"), 0o644)).To(Succeed())
		var out bytes.Buffer
		bad, err := peer.JudgeFiles([]string{file}, nil, p, reg, "", &out)
		Expect(err).NotTo(HaveOccurred())
		Expect(bad).To(Equal(1))
		Expect(out.String()).To(HavePrefix(file + ":1: ok (echo result)\n" + file + ":2: MINI-V-1: "))
		Expect(out.String()).To(HaveSuffix("2 lines: 1 valid, 1 invalid\n"))
		out.Reset()
		bad, err = peer.JudgeFiles([]string{file, file}, nil, p, reg, "", &out)
		Expect(err).NotTo(HaveOccurred())
		Expect(bad).To(Equal(2))
		Expect(strings.Count(out.String(), file+":1: ok (echo result)")).To(Equal(2))
		Expect(out.String()).To(HaveSuffix("4 lines: 2 valid, 2 invalid\n"))
		out.Reset()
		bad, err = peer.JudgeFiles(nil, strings.NewReader(`{"id":1,"result":"hi","v":1}`), p, reg, "response", &out)
		Expect(err).NotTo(HaveOccurred())
		Expect(bad).To(Equal(0))
		Expect(out.String()).To(Equal("stdin:1: ok (response)\n1 lines: 1 valid, 0 invalid\n"))
	})

	It("refuses an unknown kind before the file, and a file it cannot open", func() {
		p, reg := miniProtocol()
		_, err := peer.JudgeFiles([]string{"/nonexistent"}, nil, p, reg, "nope", io.Discard)
		Expect(err).To(MatchError(HavePrefix(`--kind "nope": mini defines`)))
		_, err = peer.JudgeFiles([]string{"/nonexistent"}, nil, p, reg, "", io.Discard)
		Expect(err).To(MatchError(ContainSubstring("/nonexistent")))
	})
})
