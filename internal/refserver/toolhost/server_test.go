package toolhost_test

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/refserver/pipe"
	"github.com/wirecheck/wirecheck/internal/refserver/toolhost"
)

func TestToolHost(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Reference tool host Suite")
}

// answerWait bounds a wait for the host's next line: generous, so a
// loaded machine (a 17 MiB line piped through) cannot fail a test.
const answerWait = 15 * time.Second

// host is one in-process reference host on pipes.
type host struct{ *pipe.Server }

func start(faults ...string) *host { return startWith(faults, nil) }

// startWith starts a host with faults and variants switched on.
func startWith(faults, variants []string) *host {
	h := &host{pipe.Start(func(in io.Reader, out, log io.Writer) int {
		return toolhost.Serve(refserver.Options{Faults: faults, Variants: variants, In: in, Out: out, Log: log})
	})}
	DeferCleanup(func() {
		h.In.Close()
		Eventually(h.Done, answerWait).Should(BeClosed())
	})
	return h
}

func (h *host) send(line string) {
	_, err := io.WriteString(h.In, line+"\n")
	Expect(err).NotTo(HaveOccurred())
}

// recv reads the next stdout line, which must be one JSON object carrying
// v: 1 and ending in a newline.
func (h *host) recv() map[string]any {
	var line []byte
	Eventually(h.Lines, answerWait).Should(Receive(&line), "the host answers")
	Expect(line).To(HaveSuffix("\n"))
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	Expect(dec.Decode(&m)).To(Succeed(), "stdout line is a JSON object: %s", line)
	Expect(m).To(HaveKeyWithValue("v", json.Number("1")))
	return m
}

// call sends a line and returns the answer: the reference host answers
// in order.
func (h *host) call(req string) map[string]any {
	h.send(req)
	return h.recv()
}

// expectServing proves the host still answers a well-formed request.
func (h *host) expectServing() {
	m := h.call(`{"v":1,"id":"alive","method":"init","params":{"config":{}}}`)
	Expect(m).To(HaveKeyWithValue("id", "alive"))
	Expect(m).To(HaveKeyWithValue("ok", true))
}

func errorOf(m map[string]any) (string, string) {
	e, _ := m["error"].(map[string]any)
	t, _ := e["type"].(string)
	d, _ := e["detail"].(string)
	return t, d
}

var _ = Describe("the reference tool host under bad input", func() {
	DescribeTable("answers ok false with the request id where one can be read, and keeps serving",
		func(line string, id any, errType string) {
			h := start()
			m := h.call(line)
			Expect(m).To(HaveKeyWithValue("ok", false))
			Expect(m).To(HaveKey("id"))
			if id == nil {
				Expect(m["id"]).To(BeNil())
			} else {
				Expect(m["id"]).To(Equal(id))
			}
			typ, detail := errorOf(m)
			Expect(typ).To(Equal(errType))
			Expect(detail).NotTo(BeEmpty(), "the error says what is wrong")
			h.expectServing()
		},
		Entry("truncated JSON", `{"v":1,"id":"a","method":"init"`, nil, "ParseError"),
		Entry("plain text", `init please`, nil, "ParseError"),
		Entry("two JSON values on one line", `{"v":1,"id":"a","method":"init","params":{}} {}`, nil, "ParseError"),
		Entry("invalid UTF-8 in a string", "{\"v\":1,\"id\":\"a\",\"method\":\"\xff\",\"params\":{}}", "a", "MethodNotFound"),
		Entry("a JSON list", `[{"v":1,"id":"a","method":"init","params":{}}]`, nil, "InvalidRequest"),
		Entry("a JSON string", `"init"`, nil, "InvalidRequest"),
		Entry("a JSON number", `42`, nil, "InvalidRequest"),
		Entry("null", `null`, nil, "InvalidRequest"),
		Entry("no id", `{"v":1,"method":"init","params":{}}`, nil, "InvalidRequest"),
		Entry("a null id", `{"v":1,"id":null,"method":"init","params":{}}`, nil, "InvalidRequest"),
		Entry("an object id", `{"v":1,"id":{"x":1},"method":"init","params":{}}`, nil, "InvalidRequest"),
		Entry("a number id is echoed as a number", `{"v":1,"id":7,"method":"nope","params":{}}`, json.Number("7"), "MethodNotFound"),
		Entry("no version", `{"id":"a","method":"init","params":{}}`, "a", "InvalidRequest"),
		Entry("another version", `{"v":2,"id":"a","method":"init","params":{}}`, "a", "InvalidRequest"),
		Entry("the version as a string", `{"v":"1","id":"a","method":"init","params":{}}`, "a", "InvalidRequest"),
		Entry("no method", `{"v":1,"id":"a","params":{}}`, "a", "InvalidRequest"),
		Entry("a number method", `{"v":1,"id":"a","method":3,"params":{}}`, "a", "InvalidRequest"),
		Entry("an unknown method", `{"v":1,"id":"a","method":"frobnicate","params":{}}`, "a", "MethodNotFound"),
		Entry("an unknown method with bad params", `{"v":1,"id":"a","method":"frobnicate","params":{"state":3}}`, "a", "MethodNotFound"),
		Entry("missing params", `{"v":1,"id":"a","method":"init"}`, "a", "InvalidParams"),
		Entry("params a list", `{"v":1,"id":"a","method":"get_tool_schemas","params":[]}`, "a", "InvalidParams"),
		Entry("params a string", `{"v":1,"id":"a","method":"execute_tool","params":"echo"}`, "a", "InvalidParams"),
		Entry("params null", `{"v":1,"id":"a","method":"init","params":null}`, "a", "InvalidParams"),
		Entry("init config a string", `{"v":1,"id":"a","method":"init","params":{"config":"x"}}`, "a", "InvalidParams"),
		Entry("state a number", `{"v":1,"id":"a","method":"get_tool_schemas","params":{"state":42}}`, "a", "InvalidParams"),
		Entry("state a list", `{"v":1,"id":"a","method":"execute_tool","params":{"tool_name":"echo","arguments":{"text":"x"},"state":[]}}`, "a", "InvalidParams"),
		Entry("execute_tool without tool_name", `{"v":1,"id":"a","method":"execute_tool","params":{"arguments":{}}}`, "a", "InvalidParams"),
		Entry("tool_name a number", `{"v":1,"id":"a","method":"execute_tool","params":{"tool_name":42}}`, "a", "InvalidParams"),
		Entry("arguments a string", `{"v":1,"id":"a","method":"execute_tool","params":{"tool_name":"echo","arguments":"x"}}`, "a", "InvalidParams"),
		Entry("an unknown tool", `{"v":1,"id":"a","method":"execute_tool","params":{"tool_name":"nope","arguments":{}}}`, "a", "ToolNotFound"),
		Entry("a tool that throws", `{"v":1,"id":"a","method":"execute_tool","params":{"tool_name":"throw","arguments":{}}}`, "a", "Error"),
		Entry("get_tags models a string", `{"v":1,"id":"a","method":"get_tags","params":{"config":{},"models":"gpt"}}`, "a", "InvalidParams"),
		Entry("format_tool_result result a string", `{"v":1,"id":"a","method":"format_tool_result","params":{"result":"x"}}`, "a", "InvalidParams"),
		Entry("format_tool_call_preview without tool_name", `{"v":1,"id":"a","method":"format_tool_call_preview","params":{"arguments":{}}}`, "a", "InvalidParams"),
		Entry("to_display_format text a number", `{"v":1,"id":"a","method":"to_display_format","params":{"text":1,"result":{}}}`, "a", "InvalidParams"),
	)

	It("ignores blank lines", func() {
		h := start()
		h.send("")
		h.send("   \t")
		m := h.call(`{"v":1,"id":"after","method":"required_tags","params":{}}`)
		Expect(m).To(HaveKeyWithValue("id", "after"))
	})

	It("answers a line over the cap as unreadable without buffering it, and keeps serving", func() {
		h := start()
		go func() {
			defer GinkgoRecover()
			big := `{"v":1,"id":"big","method":"init","params":{"config":{"pad":"` + strings.Repeat("x", 17<<20) + `"}}}`
			h.send(big)
		}()
		m := h.recv()
		Expect(m).To(HaveKeyWithValue("id", BeNil()))
		typ, _ := errorOf(m)
		Expect(typ).To(Equal("ParseError"))
		h.expectServing()
	})

	It("exits 0 when stdin ends and logs only to stderr", func() {
		h := start()
		h.expectServing()
		h.In.Close()
		Eventually(h.Exit).Should(Receive(Equal(0)))
		Eventually(h.Lines).Should(BeClosed())
		Expect(h.Stderr.String()).To(ContainSubstring("tool-host reference"))
	})
})

var _ = Describe("the reference tool host", func() {
	It("streams a tool's parts before its response, under the request's id", func() {
		h := start()
		h.send(`{"v":1,"id":"s","method":"execute_tool","params":{"tool_name":"stream","arguments":{"text":"abcdef","parts":3},"state":{}}}`)
		var parts []string
		for {
			m := h.recv()
			Expect(m).To(HaveKeyWithValue("id", "s"))
			ev, isEvent := m["event"].(map[string]any)
			if !isEvent {
				Expect(m).To(HaveKeyWithValue("ok", true))
				Expect(m["result"]).To(HaveKeyWithValue("value", map[string]any{"success": true, "result": "abcdef"}))
				break
			}
			Expect(ev).To(HaveKeyWithValue("type", "part"))
			payload, _ := ev["payload"].(map[string]any)
			parts = append(parts, payload["text"].(string))
		}
		Expect(parts).To(Equal([]string{"ab", "cd", "ef"}))
	})

	It("round-trips the state: init's state goes in, an updated state comes out", func() {
		h := start()
		m := h.call(`{"v":1,"id":"i","method":"init","params":{"config":{"greeting":"hi"}}}`)
		state := m["result"].(map[string]any)["state"]
		Expect(state).To(HaveKeyWithValue("rev", json.Number("1")))
		for want := 1; want <= 3; want++ {
			req, _ := json.Marshal(map[string]any{"v": 1, "id": "c", "method": "execute_tool",
				"params": map[string]any{"tool_name": "counter", "arguments": map[string]any{}, "state": state}})
			m = h.call(string(req))
			r := m["result"].(map[string]any)
			Expect(r["value"]).To(HaveKeyWithValue("result", HaveKeyWithValue("count", json.Number(strconv.Itoa(want)))))
			state = r["state"]
		}
		Expect(state).To(HaveKeyWithValue("rev", json.Number("4")))
	})

	It("reports a failing tool as success false, and keeps serving", func() {
		h := start()
		m := h.call(`{"v":1,"id":"f","method":"execute_tool","params":{"tool_name":"fail","arguments":{"reason":"now"}}}`)
		Expect(m).To(HaveKeyWithValue("ok", true))
		Expect(m["result"]).To(HaveKeyWithValue("value", map[string]any{"success": false, "error": "simulated failure now"}))
		h.expectServing()
	})

	It("answers optional methods switched off in init's config as unknown methods", func() {
		h := start()
		h.call(`{"v":1,"id":"i","method":"init","params":{"config":{"unimplemented":["get_tags","execute_tool"]}}}`)
		m := h.call(`{"v":1,"id":"t","method":"get_tags","params":{"config":{},"models":[]}}`)
		typ, _ := errorOf(m)
		Expect(typ).To(Equal("MethodNotFound"))
		m = h.call(`{"v":1,"id":"e","method":"execute_tool","params":{"tool_name":"echo","arguments":{"text":"x"}}}`)
		Expect(m).To(HaveKeyWithValue("ok", true), "required methods cannot be switched off")
	})

	It("opts into a provider-native envelope for structured results only", func() {
		h := start()
		m := h.call(`{"v":1,"id":"a","method":"format_tool_result","params":{"result":{"success":true,"result":{"rows":[1]}},"state":{}}}`)
		Expect(m["result"]).To(HaveKeyWithValue("value", HaveKeyWithValue("type", "provider_native_tool_result")))
		Expect(m["result"]).To(HaveKeyWithValue("value", HaveKeyWithValue("format", "openai.chat_completions")))
		m = h.call(`{"v":1,"id":"b","method":"format_tool_result","params":{"result":{"success":true,"result":"plain"},"state":{}}}`)
		Expect(m["result"]).To(HaveKeyWithValue("value", "plain"))
	})
})
