package httpmcp_test

import (
	"fmt"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpmcp"
	"github.com/wirecheck/wirecheck/internal/transport"
)

var _ = Describe("CloseRequest", func() {
	const (
		slowReq = `{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"t"}}}`
		listReq = `{"jsonrpc":"2.0","id":"next-1","method":"tools/list"}`
	)

	// slowHandler streams one progress event for tools/call, then waits
	// until the client leaves and closes disconnected; anything else is
	// answered with JSON at once.
	slowHandler := func(disconnected chan struct{}) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			msg := readRPC(r)
			if msg.Method != "tools/call" {
				(&mcpServer{}).serveRPC(w, msg)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("X-Accel-Buffering", "no")
			fmt.Fprint(w, `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`+"\n\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			close(disconnected)
		})
	}

	It("closes one request's stream, which the server sees as the client leaving; nothing more of that request comes", func() {
		disconnected := make(chan struct{})
		t, hk := dial(server(slowHandler(disconnected)).URL, "http", 5*time.Second)
		c := t.(transport.RequestCloser)
		Expect(t.Send([]byte(slowReq))).To(Succeed())
		Expect(string(next(t).Raw)).To(ContainSubstring("notifications/progress"))
		Expect(c.CloseRequest(`"slow-1"`)).To(BeTrue())
		Eventually(disconnected).WithTimeout(10 * time.Second).Should(BeClosed())
		// Once its exchange has ended it is no longer closable; an End
		// frame for it would have been queued before that, so before the
		// next request's answer.
		Eventually(func() bool { return c.CloseRequest(`"slow-1"`) }).WithTimeout(10 * time.Second).Should(BeFalse())
		Expect(t.Send([]byte(listReq))).To(Succeed())
		f := next(t)
		Expect(f.Raw).NotTo(BeNil(), "an End frame: %+v", f.HTTP)
		Expect(string(f.Raw)).To(ContainSubstring(`"next-1"`))
		Expect(hk.Verdicts(httpmcp.CheckHTTPStreamHasResponse)).To(BeEmpty(), "a stream the client closed is not judged")
	})

	It("reports false for a request never sent or already answered", func() {
		t, _ := dial(server(&mcpServer{}).URL, "http", 5*time.Second)
		c := t.(transport.RequestCloser)
		Expect(c.CloseRequest(`"never"`)).To(BeFalse())
		Expect(t.Send([]byte(listReq))).To(Succeed())
		Expect(string(next(t).Raw)).To(ContainSubstring(`"next-1"`))
		Eventually(func() bool { return c.CloseRequest(`"next-1"`) }).WithTimeout(10 * time.Second).Should(BeFalse())
	})
})
