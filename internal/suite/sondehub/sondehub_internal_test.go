package sondehub

import (
	"net/url"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
)

func TestSondeHubSuite(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "sonde-hub scenarios Suite")
}

// result is a tools/call answer carrying text.
func result(text string) *peer.Inbound {
	return &peer.Inbound{Value: map[string]any{"jsonrpc": "2.0", "id": "1", "result": map[string]any{
		"content": []any{map[string]any{"type": "text", "text": text}}}}}
}

var _ = Describe("the sonde-hub scenarios' readings", func() {
	It("find the REST API beside the MCP endpoint, under the hub's own path", func() {
		for ep, want := range map[string]string{
			"http://127.0.0.1:8080/mcp":          "http://127.0.0.1:8080",
			"https://hub.example/sonde/mcp/":     "https://hub.example/sonde",
			"https://hub.example/mcp?key=x#frag": "https://hub.example",
			"https://hub.example/rpc":            "https://hub.example/rpc",
		} {
			u, err := url.Parse(ep)
			Expect(err).NotTo(HaveOccurred())
			Expect(restBase(u)).To(Equal(want), ep)
		}
	})

	It("read agents from JSON in any nesting, tags with or without #, and not from prose", func() {
		as, why := readAgents(result(`{"fleet":{"agents":[{"hostname":"a","tags":["#x","y"]},{"id":"b","tags":"x, z"}]}}`))
		Expect(why).To(BeEmpty())
		Expect(as).To(Equal([]hubAgent{{"a", []string{"x", "y"}}, {"b", []string{"x", "z"}}}))
		_, why = readAgents(result("a: online, tags x y"))
		Expect(why).To(ContainSubstring("no JSON list of agents"))
	})

	It("pick the tags that tell a filter, and AND from OR", func() {
		agents := []hubAgent{{"a", []string{"p", "l"}}, {"b", []string{"p", "l"}}, {"c", []string{"p", "w"}}, {"d", []string{"d", "l"}}}
		Expect(oneTag(agents)).To(Equal("d"), "the rarest tag some agents lack")
		a, b := twoTags(agents)
		Expect(count(agents, []string{a, b})).To(Equal(2))
		Expect([]string{a, b}).To(ConsistOf("l", "p"))
		Expect(oneTag([]hubAgent{{"a", []string{"p"}}, {"b", []string{"p"}}})).To(BeEmpty(), "no tag narrows a fleet that shares its tags")
		x, _ := twoTags([]hubAgent{{"a", []string{"p", "l"}}, {"b", []string{"p", "l"}}})
		Expect(x).To(BeEmpty())
	})

	It("write tags as the tool's schema says first, then every other way", func() {
		arr := map[string]any{"inputSchema": map[string]any{"properties": map[string]any{"tags": map[string]any{"type": "array"}}}}
		str := map[string]any{"inputSchema": map[string]any{"properties": map[string]any{"tags": map[string]any{"type": "string"}}}}
		Expect(forms(arr, []string{"p", "l"})).To(Equal([]any{[]any{"p", "l"}, []any{"#p", "#l"}, "#p #l", "p l", "p,l"}))
		Expect(forms(str, []string{"p"})[0]).To(Equal("#p"))
	})

	It("name the agents a result mentions, in JSON exactly and in prose as words", func() {
		agents := []hubAgent{{"web-1", nil}, {"web-10", nil}, {"db", nil}}
		Expect(mentioned(result(`{"findings":[{"agent":"web-10"},{"note":"db is fine"}]}`), agents)).To(Equal([]string{"web-10"}))
		Expect(mentioned(result("web-10: healthy; db: down"), agents)).To(Equal([]string{"web-10", "db"}))
	})
})
