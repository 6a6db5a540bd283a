package mcp_test

import (
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/suite/mcp"
)

func tools(js string) []any {
	var v []any
	Expect(json.Unmarshal([]byte(js), &v)).To(Succeed())
	return v
}

var _ = Describe("the tool the cancel scenario cancels in progress", func() {
	listed := tools(`[
		{"name": "echo", "description": "Echoes its input", "inputSchema": {"type": "object"}},
		{"name": "research", "description": "A slow, deep search", "inputSchema": {"type": "object"}},
		{"name": "trigger-long-running-operation", "description": "Demonstrates progress", "inputSchema": {"type": "object"}}
	]`)

	It("is the one --param mcp-slow-tool names, else a name, then a description, that suggests a long run", func() {
		t, _ := mcp.SlowTool(map[string]string{"mcp-slow-tool": "echo"}, listed)
		Expect(t).To(HaveKeyWithValue("name", "echo"))
		t, _ = mcp.SlowTool(nil, listed)
		Expect(t).To(HaveKeyWithValue("name", "trigger-long-running-operation"))
		t, _ = mcp.SlowTool(nil, listed[:2])
		Expect(t).To(HaveKeyWithValue("name", "research"))
	})

	It("is none, with a hint, when nothing looks slow or the named tool is not listed", func() {
		t, why := mcp.SlowTool(nil, listed[:1])
		Expect(t).To(BeNil())
		Expect(why).To(ContainSubstring("--param mcp-slow-tool=NAME"))
		t, why = mcp.SlowTool(map[string]string{"mcp-slow-tool": "nope"}, listed)
		Expect(t).To(BeNil())
		Expect(why).To(ContainSubstring(`no tool "nope"`))
	})

	It("gets a duration of 200 ms, in the unit its name says (whole seconds for an integer), within its bounds, and 5 steps", func() {
		var sch map[string]any
		Expect(json.Unmarshal([]byte(`{"type": "object", "properties": {
			"duration": {"type": "number", "description": "Duration of the operation in seconds"},
			"steps": {"type": "number"}, "label": {"type": "string"}}, "required": ["label"]}`), &sch)).To(Succeed())
		args, expect := mcp.SlowArgs(sch)
		Expect(args).To(HaveKeyWithValue("duration", 0.2))
		Expect(args).To(HaveKeyWithValue("steps", 5.0))
		Expect(args).To(HaveKey("label"))
		Expect(expect).To(Equal(200 * time.Millisecond))

		Expect(json.Unmarshal([]byte(`{"type": "object", "properties": {"seconds": {"type": "integer"}}}`), &sch)).To(Succeed())
		args, expect = mcp.SlowArgs(sch)
		Expect(args).To(HaveKeyWithValue("seconds", 1.0))
		Expect(expect).To(Equal(time.Second))

		Expect(json.Unmarshal([]byte(`{"type": "object", "properties": {"durationMs": {"type": "integer", "minimum": 0, "maximum": 150}}}`), &sch)).To(Succeed())
		args, expect = mcp.SlowArgs(sch)
		Expect(args).To(HaveKeyWithValue("durationMs", 150.0))
		Expect(expect).To(Equal(150 * time.Millisecond))
	})
})
