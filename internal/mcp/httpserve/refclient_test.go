package httpserve_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/mcp/httpserve"
	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/refserver/mcpclient"
)

// refClient runs wirecheck's reference client, with faults, against s
// until it exits, serving each session it opens.
func refClient(s *httpserve.Server, faults ...string) int {
	return refClientWith(s, refserver.Options{Faults: faults})
}

func refClientWith(s *httpserve.Server, o refserver.Options) int {
	serve(s, nil)
	done := make(chan int, 1)
	o.Args, o.Log = []string{s.Endpoint()}, GinkgoWriter
	go func() {
		done <- mcpclient.Serve(o)
	}()
	select {
	case code := <-done:
		return code
	case <-time.After(8 * time.Second):
		Fail("the reference client did not finish within 8s")
		return -1
	}
}

var _ = Describe("the reference client over HTTP", func() {
	every := []string{httpserve.CheckAcceptPost, httpserve.CheckAcceptGet, httpserve.CheckSessionID,
		httpserve.CheckVersionHeader, httpserve.CheckVersionNegotiated, httpserve.CheckDelete, httpserve.CheckResumes, httpserve.CheckRetry}

	It("passes every check, resuming the stream wirecheck breaks after retry", func() {
		s, rec := listen(false, httpserve.Settings{Retry: 30 * time.Millisecond, DropCall: "tools/call"})
		Expect(refClient(s)).To(Equal(0))
		for _, c := range every {
			Expect(rec.PassedOnly(c)).To(BeTrue(), c)
		}
	})

	It("takes JSON answers, and speaks the legacy transport where the URL serves it", func() {
		s, _ := listen(false, httpserve.Settings{JSON: true, NoGet: true, NoDelete: true})
		Expect(refClient(s)).To(Equal(0))
		legacy, _ := listen(true, httpserve.Settings{})
		Expect(refClient(legacy)).To(Equal(0))
	})

	It("speaks 2026-07-28 without a session, its request metadata in headers", func() {
		s, rec := listen(false, httpserve.Settings{})
		Expect(refClientWith(s, refserver.Options{Variants: []string{"modern"}})).To(Equal(0))
		Expect(rec.PassedOnly(httpserve.CheckMetadataHeaders)).To(BeTrue())
		Expect(rec.PassedOnly(httpserve.CheckVersionHeader)).To(BeTrue())
		Expect(rec.Verdicts(httpserve.CheckSessionID)).To(BeEmpty())

		s, rec = listen(false, httpserve.Settings{})
		refClientWith(s, refserver.Options{Variants: []string{"modern"}, Faults: []string{"no-method-header"}})
		Expect(rec.Failed(httpserve.CheckMetadataHeaders)).To(BeTrue())
	})

	It("starts a new session when its own ends", func() {
		s, rec := listen(false, httpserve.Settings{EndAfter: "tools/list"})
		Expect(refClient(s)).To(Equal(0))
		Expect(rec.PassedOnly(httpserve.CheckReinitialize)).To(BeTrue())
	})

	DescribeTable("trips the check its fault breaks",
		func(fault string, set httpserve.Settings, checks ...string) {
			s, rec := listen(false, set)
			if fault == "no-last-event-id" {
				// Its reconnection is a plain GET stream, which carries no
				// response: the client waits on it until the server goes.
				go func() {
					defer GinkgoRecover()
					Eventually(func() int { return len(rec.Verdicts(httpserve.CheckAcceptGet)) }).Should(BeNumerically(">=", 2))
					_ = s.Close()
				}()
			}
			refClient(s, fault)
			Expect(s.Close()).To(Succeed())
			for _, c := range checks {
				Expect(rec.Failed(c)).To(BeTrue(), c)
			}
		},
		Entry(nil, "wrong-accept", httpserve.Settings{}, httpserve.CheckAcceptPost, httpserve.CheckAcceptGet),
		Entry(nil, "no-session-id", httpserve.Settings{}, httpserve.CheckSessionID),
		Entry(nil, "no-protocol-version-header", httpserve.Settings{}, httpserve.CheckVersionHeader),
		Entry(nil, "ignores-retry", httpserve.Settings{Retry: 300 * time.Millisecond, DropCall: "tools/call"}, httpserve.CheckRetry),
		Entry(nil, "no-last-event-id", httpserve.Settings{DropCall: "tools/call"}, httpserve.CheckResumes),
		Entry(nil, "reinit-with-old-id", httpserve.Settings{EndAfter: "tools/list"}, httpserve.CheckReinitialize),
	)

	It("trips the DELETE check with no-delete, once it has exited", func() {
		s, rec := listen(false, httpserve.Settings{})
		var c *httpserve.Session
		serveOne := make(chan *httpserve.Session, 1)
		go func() {
			defer GinkgoRecover()
			c := accept(s)
			responder(c, nil)
			serveOne <- c
		}()
		Expect(mcpclient.Serve(refserver.Options{Args: []string{s.Endpoint()}, Faults: []string{"no-delete"}, Log: GinkgoWriter})).To(Equal(0))
		c = <-serveOne
		c.Finish()
		Expect(rec.Verdicts(httpserve.CheckDelete)).To(HaveExactElements(BeEquivalentTo("fail")))
	})
})
