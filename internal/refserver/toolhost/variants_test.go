package toolhost_test

import (
	"bytes"
	"encoding/json"
	"io"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/refserver/toolhost"
)

// variant starts a host with one variant switched on.
func variant(name string) *host { return startWith(nil, []string{name}) }

// rawLine reads the next stdout line as written.
func (h *host) rawLine() []byte {
	var line []byte
	Eventually(h.Lines, answerWait).Should(Receive(&line), "the host answers")
	return line
}

var _ = Describe("the reference tool host's variants", func() {
	It("params-default reads missing or null params as {}, and still refuses params of another type", func() {
		h := variant("params-default")
		Expect(h.call(`{"v":1,"id":"a","method":"init"}`)).To(HaveKeyWithValue("ok", true))
		Expect(h.call(`{"v":1,"id":"b","method":"required_tags","params":null}`)).To(HaveKeyWithValue("ok", true))
		m := h.call(`{"v":1,"id":"c","method":"get_tool_schemas","params":[]}`)
		Expect(m).To(HaveKeyWithValue("ok", false))
	})

	It("lenient-params serves params of another type, ignoring what it cannot use", func() {
		h := variant("lenient-params")
		Expect(h.call(`{"v":1,"id":"a","method":"get_tool_schemas","params":[1,2]}`)).To(HaveKeyWithValue("ok", true))
		Expect(h.call(`{"v":1,"id":"b","method":"init","params":{"config":"x"}}`)).To(HaveKeyWithValue("ok", true))
		Expect(h.call(`{"v":1,"id":"c","method":"get_tool_schemas","params":{"state":42}}`)).To(HaveKeyWithValue("ok", true))
		m := h.call(`{"v":1,"id":"d","method":"execute_tool","params":{"tool_name":42}}`)
		Expect(m).To(HaveKeyWithValue("ok", false), "a call naming no listed tool still fails")
	})

	It("serve-no-id serves a request without an id under id null, and echoes an id of another type as given", func() {
		h := variant("serve-no-id")
		m := h.call(`{"v":1,"method":"init","params":{"config":{}}}`)
		Expect(m).To(HaveKeyWithValue("ok", true))
		Expect(m).To(HaveKeyWithValue("id", BeNil()))
		m = h.call(`{"v":1,"id":true,"method":"init","params":{"config":{}}}`)
		Expect(m).To(HaveKeyWithValue("id", true))
		Expect(m).To(HaveKeyWithValue("ok", true))
	})

	It("omit-null-id leaves the id key out where the id could not be read", func() {
		h := variant("omit-null-id")
		m := h.call(`init please`)
		Expect(m).NotTo(HaveKey("id"))
		Expect(m).To(HaveKeyWithValue("ok", false))
		Expect(h.call(`{"v":1,"id":"a","method":"init","params":{}}`)).To(HaveKeyWithValue("id", "a"))
	})

	It("crlf ends every line with \\r\\n, each still one JSON value", func() {
		h := variant("crlf")
		h.send(`{"v":1,"id":"a","method":"required_tags","params":{}}`)
		line := h.rawLine()
		Expect(line).To(HaveSuffix("}\r\n"))
		var m map[string]any
		Expect(json.Unmarshal(bytes.TrimSpace(line), &m)).To(Succeed())
	})

	It("out-of-order answers an execute_tool call after the request already waiting behind it, events before its response", func() {
		h := variant("out-of-order")
		// One write: the second request has arrived when the first is done.
		_, err := io.WriteString(h.In, `{"v":1,"id":"x","method":"execute_tool","params":{"tool_name":"stream","arguments":{"text":"ab","parts":2},"state":{}}}`+"\n"+
			`{"v":1,"id":"y","method":"required_tags","params":{}}`+"\n")
		Expect(err).NotTo(HaveOccurred())
		var order []string
		for range 4 {
			m := h.recv()
			kind := "response"
			if _, isEvent := m["event"]; isEvent {
				kind = "event"
			}
			order = append(order, m["id"].(string)+" "+kind)
		}
		Expect(order).To(Equal([]string{"y response", "x event", "x event", "x response"}))
	})

	It("out-of-order answers at once when no request is waiting", func() {
		h := variant("out-of-order")
		m := h.call(`{"v":1,"id":"x","method":"execute_tool","params":{"tool_name":"echo","arguments":{"text":"a"},"state":{}}}`)
		Expect(m).To(HaveKeyWithValue("id", "x"))
	})

	It("slow-exit exits 0 no sooner than SlowExit after stdin ends", func() {
		h := variant("slow-exit")
		h.expectServing()
		closed := time.Now()
		h.In.Close()
		Eventually(h.Exit, 5*time.Second).Should(Receive(Equal(0)))
		Expect(time.Since(closed)).To(BeNumerically(">=", toolhost.SlowExit))
	})

	It("eof-exit-1 exits 1 when stdin ends", func() {
		h := variant("eof-exit-1")
		h.expectServing()
		h.In.Close()
		Eventually(h.Exit, 5*time.Second).Should(Receive(Equal(1)))
	})

	It("slow-tool runs a listed tool no shorter than SlowTool, and answers an unknown one at once", func() {
		h := variant("slow-tool")
		sent := time.Now()
		Expect(h.call(`{"v":1,"id":"a","method":"execute_tool","params":{"tool_name":"echo","arguments":{"text":"x"},"state":{}}}`)).To(HaveKeyWithValue("ok", true))
		Expect(time.Since(sent)).To(BeNumerically(">=", toolhost.SlowTool))
		Expect(h.call(`{"v":1,"id":"b","method":"execute_tool","params":{"tool_name":"nope","arguments":{},"state":{}}}`)).To(HaveKeyWithValue("ok", false))
	})

	It("slow-start answers its first request no sooner than SlowStart after it started", func() {
		started := time.Now()
		h := variant("slow-start")
		h.send(`{"v":1,"id":"a","method":"required_tags","params":{}}`)
		Eventually(h.Lines, 5*time.Second).Should(Receive())
		Expect(time.Since(started)).To(BeNumerically(">=", toolhost.SlowStart))
	})

	DescribeTable("declining the optional methods",
		func(name, errType, detail string) {
			h := variant(name)
			for _, m := range toolhost.Optional {
				typ, d := errorOf(h.call(`{"v":1,"id":"a","method":"` + m + `","params":{}}`))
				Expect(typ).To(Equal(errType), m)
				Expect(d).To(ContainSubstring(detail), m)
			}
			Expect(h.call(`{"v":1,"id":"b","method":"execute_tool","params":{"tool_name":"echo","arguments":{"text":"x"},"state":{}}}`)).To(HaveKeyWithValue("ok", true))
		},
		Entry("no-optional: as unknown methods", "no-optional", "MethodNotFound", "Unknown method"),
		Entry("vague-decline: in plain words", "vague-decline", "Error", "no handler for"),
	)

	It("extra-fields adds fields the document does not name", func() {
		h := variant("extra-fields")
		m := h.call(`{"v":1,"id":"a","method":"init","params":{"config":{}}}`)
		Expect(m).To(HaveKey("host"))
		Expect(m["result"]).To(HaveKey("meta"))
		m = h.call(`{"v":1,"id":"b","method":"nope","params":{}}`)
		Expect(m["error"]).To(HaveKey("code"))
	})

	It("event-kinds streams a progress event without a payload before a tool's parts", func() {
		h := variant("event-kinds")
		h.send(`{"v":1,"id":"s","method":"execute_tool","params":{"tool_name":"stream","arguments":{"text":"ab","parts":1},"state":{}}}`)
		first := h.recv()
		Expect(first).To(HaveKeyWithValue("event", Equal(map[string]any{"type": "progress"})))
		Expect(h.recv()).To(HaveKeyWithValue("event", HaveKeyWithValue("type", "part")))
		Expect(h.recv()).To(HaveKeyWithValue("ok", true))
	})

	It("config-required refuses init without a greeting and serves it with one", func() {
		h := variant("config-required")
		Expect(h.call(`{"v":1,"id":"a","method":"init","params":{"config":{}}}`)).To(HaveKeyWithValue("ok", false))
		Expect(h.call(`{"v":1,"id":"b","method":"init","params":{"config":{"greeting":"hi"}}}`)).To(HaveKeyWithValue("ok", true))
	})
})
