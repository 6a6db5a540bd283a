package mcp_test

import (
	"bytes"
	"net/http"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// slowUpdates delays what the server's GET stream writes of a
// resources/updated notification: sent before or after the unsubscribe
// was answered, it is read after that answer.
type slowUpdates struct {
	http.ResponseWriter
}

func (w slowUpdates) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte("notifications/resources/updated")) {
		time.Sleep(50 * time.Millisecond)
	}
	return w.ResponseWriter.Write(b)
}

func (w slowUpdates) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

var _ = Describe("an update of a resource after its unsubscribe (MCP-RESOURCES-8)", func() {
	It("fails the resources scenario alone on stdio, where the answer to a later request orders it", func() {
		scs := named("resources")
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2025-06-18", Faults: []string{"updated-after-unsubscribe"}},
			runner.Config{Scenarios: scs, Partial: true, Timeout: 10 * time.Second})
		Expect(err).NotTo(HaveOccurred())
		v, msg := finding(rep, "MCP-RESOURCES-8")
		Expect(v).To(Equal(verdict.Fail), msg)
		Expect(msg).To(ContainSubstring("after the unsubscribe was answered"))
	})

	It("is a skip, not a failure, over Streamable HTTP, where streams are not ordered", func() {
		var unsubscribed atomic.Bool
		t, stop := testrun.Front(refserver.Options{Faults: []string{"updated-after-unsubscribe"}}, func(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
			if r.Method == http.MethodGet {
				return slowUpdates{w}
			}
			switch body := testrun.Body(r); {
			case bytes.Contains(body, []byte(`"resources/unsubscribe"`)):
				unsubscribed.Store(true)
			case unsubscribed.Load() && bytes.Contains(body, []byte(`"method":"ping"`)):
				// The barrier after the unsubscribe is answered once the
				// delayed update has been read.
				time.Sleep(300 * time.Millisecond)
			}
			return w
		})
		DeferCleanup(stop)
		rep := runOne("resources", t.URL)
		// Both updates were judged (MCP-RESOURCES-7, the capability,
		// passes each), and neither fails MCP-RESOURCES-8: the one read
		// after the unsubscribe's answer is a skip; the one the subscribe
		// set off passes, or, when a loaded machine reads it after that
		// answer too, is a skip as well.
		r7 := 0
		for _, fd := range rep.Findings {
			switch fd.Rule {
			case "MCP-RESOURCES-7":
				Expect(fd.Verdict).To(Equal(verdict.Pass), fd.Message)
				r7 += fd.Count
			case "MCP-RESOURCES-8":
				Expect(fd.Verdict).To(BeElementOf(verdict.Pass, verdict.Skip), fd.Message)
			}
		}
		Expect(r7).To(Equal(2))
	})
})
