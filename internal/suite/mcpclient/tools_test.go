package mcpclient

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/mcpheader"
)

// The tools of client-http-custom-headers must be what their names say
// by the same reading the transport judges with: a client is failed for
// calling a tool only if that tool is invalid beyond doubt.
var _ = Describe("client-http-custom-headers' tools", func() {
	// As the transport sees them: through JSON, numbers as json.Number.
	roundTrip := func(v any) any {
		b, err := json.Marshal(v)
		Expect(err).NotTo(HaveOccurred())
		var out any
		Expect(json.Unmarshal(b, &out)).To(Succeed())
		return out
	}

	It("route is valid, and its defaults exercise each rule: plain, Base64 and null", func() {
		ps, err := mcpheader.Params(roundTrip(routeTool["inputSchema"]))
		Expect(err).NotTo(HaveOccurred())
		Expect(ps).To(HaveLen(6))
		args := map[string]any{}
		props := routeTool["inputSchema"].(map[string]any)["properties"].(map[string]any)
		for k, v := range props {
			if d, ok := v.(map[string]any)["default"]; ok {
				args[k] = d
			}
		}
		args["target"] = map[string]any{"zone": " padded "}
		args = roundTrip(args).(map[string]any)
		var plain, encoded, null int
		for _, p := range ps {
			if v, present := p.At(args); present && v == nil {
				null++
				continue
			}
			raw, ok := p.Raw(args)
			Expect(ok).To(BeTrue(), p.Name)
			if mcpheader.Plain(raw) {
				plain++
			} else {
				encoded++
			}
		}
		Expect([]int{plain, encoded, null}).To(Equal([]int{3, 2, 1}))
	})

	It("every one of the six is invalid", func() {
		for _, t := range invalidTools {
			m := t.(map[string]any)
			_, err := mcpheader.Params(roundTrip(m["inputSchema"]))
			Expect(err).To(HaveOccurred(), "%v", m["name"])
			Expect(invalidTool(m["name"])).To(BeTrue())
		}
		Expect(invalidTool("route")).To(BeFalse())
	})
})
