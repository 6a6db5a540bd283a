package mcp_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/refserver"
	"github.com/wirecheck/wirecheck/internal/report"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/suite/mcp"
	"github.com/wirecheck/wirecheck/internal/target"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// The reference server's slow tool answers "worked …": the resumed
// streams below lose that answer, or hold it back.
var slowAnswer = []byte(`worked `)

// resumedWriter stands between the reference server and the GET that
// resumes a stream. It drops the slow call's answer and keeps the stream
// open until the client leaves (lose, as server-everything does), or holds
// the answer back for a second while it writes a log notification every
// 100 ms (a server late but visibly at work).
type resumedWriter struct {
	http.ResponseWriter
	how  resumed
	gone <-chan struct{}
	n    int
}

// resumed is what the server does with the resumed stream.
type resumed int

const (
	brings resumed = iota // the response, at once
	loses                 // nothing, until the client leaves
	late                  // the response a second late, log notifications meanwhile
	slow                  // the response a second late, and every ping a little later (a loaded machine)
)

func (w *resumedWriter) Write(b []byte) (int, error) {
	if !bytes.Contains(b, slowAnswer) {
		return w.ResponseWriter.Write(b)
	}
	switch w.how {
	case loses:
		<-w.gone
		return len(b), nil
	case slow:
		time.Sleep(time.Second)
		return w.ResponseWriter.Write(b)
	}
	for range 10 {
		time.Sleep(100 * time.Millisecond)
		w.n++
		fmt.Fprintf(w.ResponseWriter, "id: late-%d\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"still working\"}}\n\n", w.n)
		w.Flush()
	}
	return w.ResponseWriter.Write(b)
}

func (w *resumedWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// resumeRun runs the http-resume scenario against the resumable
// reference server over HTTP, its resumed streams passed through
// resumedWriter.
func resumeRun(how resumed, params ...string) *report.Report {
	t, stop := testrun.Front(refserver.Options{Variants: []string{"resumable"}}, func(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
		if r.Method == http.MethodPost && how == slow && bytes.Contains(testrun.Body(r), []byte(`"method":"ping"`)) {
			time.Sleep(1100 * time.Millisecond)
		}
		if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "" {
			return &resumedWriter{ResponseWriter: w, how: how, gone: r.Context().Done()}
		}
		return w
	})
	DeferCleanup(stop)
	return runOne("http-resume", t.URL, params...)
}

// named is the MCP suite's scenario of that name, alone in its list.
func named(name string) []*scenario.Scenario {
	b, err := protocols.Load("mcp")
	Expect(err).NotTo(HaveOccurred())
	for _, s := range b.Scenarios {
		if s.Name == name {
			return []*scenario.Scenario{s}
		}
	}
	Fail("the MCP suite has no scenario " + name)
	return nil
}

// runOne runs one scenario of the MCP suite, under 2025-11-25, against
// the server at url (a running server: the scenario begins its lane),
// with --param KEY VALUE pairs.
func runOne(name, url string, params ...string) *report.Report {
	scs := named(name)
	ps := map[string]string{}
	for i := 0; i+1 < len(params); i += 2 {
		ps[params[i]] = params[i+1]
	}
	rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Revision: "2025-11-25",
		Command: target.Target{URL: url, Transport: "http"}},
		runner.Config{Scenarios: scs, Partial: true, Timeout: 20 * time.Second, Params: ps})
	Expect(err).NotTo(HaveOccurred())
	return rep
}

func disconnect(rep *report.Report) (verdict.Verdict, string) {
	return finding(rep, "MCP-HTTP-DISCONNECT-1")
}

// finding is a rule's first finding: its verdict and message.
func finding(rep *report.Report, rule string) (verdict.Verdict, string) {
	for _, f := range rep.Findings {
		if f.Rule == rule {
			return f.Verdict, f.Message
		}
	}
	return "", ""
}

var _ = Describe("the http-resume scenario's wait for the dropped call's response", func() {
	It("passes a server whose resumed stream brings the response", func() {
		v, msg := disconnect(resumeRun(brings))
		Expect(v).To(Equal(verdict.Pass), msg)
	})

	It("fails a server whose resumed stream loses the response, once the tool's expected end is past, not a response timeout later", func() {
		v, msg := disconnect(resumeRun(loses))
		Expect(v).To(Equal(verdict.Fail))
		Expect(msg).To(ContainSubstring("did not come on the resumed stream"))
		Expect(msg).To(ContainSubstring("after the tool's expected end: it was asked to work 200ms"))
		Expect(msg).To(ContainSubstring("the wait ends 300ms after that"))
		Expect(msg).To(ContainSubstring("wirecheck's default: the pages bound no such wait; --param mcp-resume-grace=DURATION sets it"))
	})

	It("waits as long as --param mcp-resume-grace says, and names it", func() {
		v, msg := disconnect(resumeRun(loses, mcp.ResumeGraceParam, "1500ms"))
		Expect(v).To(Equal(verdict.Fail))
		Expect(msg).To(ContainSubstring("the wait ends 1.5s after that"))
		Expect(msg).To(ContainSubstring("; --param mcp-resume-grace)"))
	})

	It("refuses a --param mcp-resume-grace that is no positive duration", func() {
		rep := resumeRun(brings, mcp.ResumeGraceParam, "soon")
		Expect(rep.Summary.Error).NotTo(BeZero())
		var msgs []string
		for _, f := range rep.Findings {
			msgs = append(msgs, f.Message)
		}
		Expect(strings.Join(msgs, "\n")).To(ContainSubstring("--param mcp-resume-grace=soon: not a positive duration"))
	})

	It("waits for a response that comes late while the resumed stream shows the server at work", func() {
		v, msg := disconnect(resumeRun(late))
		Expect(v).To(Equal(verdict.Pass), msg)
	})

	It("waits for a response that comes late from a server whose ping at the tool's expected end is answered as late", func() {
		v, msg := disconnect(resumeRun(slow))
		Expect(v).To(Equal(verdict.Pass), msg)
	})
})

var _ = Describe("the shutdown scenario over HTTP", func() {
	It("opens the session the liveness ping after it needs, when it begins a lane against a running server", func() {
		t, stop := testrun.Front(refserver.Options{}, nil)
		DeferCleanup(stop)
		rep := runOne("shutdown", t.URL)
		Expect(rep.Summary.Pass).NotTo(BeZero())
		Expect(rep.Summary.Fail).To(BeZero(), "%+v", rep.Findings)
		Expect(rep.Summary.Error).To(BeZero(), "%+v", rep.Findings)
	})
})
