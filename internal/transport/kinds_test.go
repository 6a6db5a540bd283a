//go:build linux

package transport

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the transport registry", func() {
	It("has stdio built in, reached by no URL", func() {
		k, ok := Lookup(Stdio)
		Expect(ok).To(BeTrue())
		Expect(k.Title).To(Equal("stdio"))
		Expect(OverURL(Stdio)).To(BeFalse())
		Expect(Names()[0]).To(Equal(Stdio))
		_, ok = Lookup("ws")
		Expect(ok).To(BeFalse())
		Expect(Title("ws")).To(Equal("ws"), "an unknown transport keeps its name")
	})

	It("refuses a transport registered twice, or without a name or a Dial", func() {
		dial := func(DialOptions) (Transport, error) { return nil, nil }
		Expect(func() { Register(Kind{Name: Stdio, Dial: dial}) }).To(PanicWith(ContainSubstring("registered twice")))
		Expect(func() { Register(Kind{Dial: dial}) }).To(PanicWith(ContainSubstring("needs a Name")))
		Expect(func() { Register(Kind{Name: "carrier-pigeon"}) }).To(PanicWith(ContainSubstring("needs a Name and a Dial")))
		_, ok := Lookup("carrier-pigeon")
		Expect(ok).To(BeFalse())
	})

	It("names a transport it cannot dial, and the ones it can", func() {
		_, err := DialKind(DialOptions{Kind: Stdio, URL: "http://127.0.0.1:1/"})
		Expect(err).To(MatchError(ContainSubstring(`transport "stdio" is not reached by URL`)))
	})

	DescribeTable("lists names for a message",
		func(names []string, want string) { Expect(Alternatives(names)).To(Equal(want)) },
		Entry(nil, nil, "none"),
		Entry(nil, []string{"a"}, "a"),
		Entry(nil, []string{"a", "b"}, "a or b"),
		Entry(nil, []string{"a", "b", "c"}, "a, b or c"),
	)
})
