package runner_test

import (
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/wirecheck/wirecheck/internal/peer"
	"github.com/wirecheck/wirecheck/internal/protocols"
	"github.com/wirecheck/wirecheck/internal/runner"
	"github.com/wirecheck/wirecheck/internal/scenario"
	"github.com/wirecheck/wirecheck/internal/testrun"
	"github.com/wirecheck/wirecheck/internal/transcript"
	"github.com/wirecheck/wirecheck/internal/verdict"
)

// A fault whose only symptom is silence costs a timeout; these specs keep
// it from costing one per lane, or one more per scenario.
var _ = Describe("the waits a silent server costs", func() {
	It("lets the next lane's server start once a server without a ready line has read its request, though it answers nothing", func() {
		// One start at a time: without the read telling that the first
		// server is up, the second lane's server would be launched only
		// once the first server spoke (never) or its scenario ended.
		var launches atomic.Int32
		second := make(chan struct{})
		var once sync.Once
		DeferCleanup(runner.SetLaunched(func(*peer.Peer) {
			if launches.Add(1) == 2 {
				once.Do(func() { close(second) })
			}
		}))
		// The server drops server/discover: it reads the request and
		// writes nothing.
		dropped := &scenario.Scenario{Name: "dropped", Fresh: true, Rules: []string{"MCP-PING-1"}, Run: func(e *scenario.Env) error {
			c, err := e.Send(map[string]any{"jsonrpc": "2.0", "id": "dropped-1", "method": "server/discover", "params": map[string]any{}})
			if err != nil {
				return err
			}
			e.Forget(c)
			// The bound only keeps a broken runner from hanging the test:
			// the other lane's launch, not a time, ends this wait.
			select {
			case <-second:
				e.Pass("MCP-PING-1", c.Seq)
			case <-time.After(20 * time.Second):
				e.Fail("MCP-PING-1", c.Seq, "the other lane's server was not launched while this one, which had read its request, was silent", "a launch", "none")
			}
			return nil
		}}
		rep, err := testrun.Run(testrun.Server{Protocol: "mcp", Faults: []string{"discover-silent"}}, runner.Config{
			Scenarios: []*scenario.Scenario{dropped, pinged("other", true, false, nil)},
			Jobs:      2, Starts: 1, Timeout: time.Second, StartupTimeout: time.Minute,
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(findings(rep, "dropped", verdict.Fail, verdict.Error)).To(BeEmpty())
		Expect(findings(rep, "dropped", verdict.Pass)).NotTo(BeEmpty())
		Expect(findings(rep, "other", verdict.Fail, verdict.Error)).To(BeEmpty())
	})

	It("sends no liveness probe after a scenario that sent the server nothing", func() {
		// Against a server that does not answer the probe (a 2026-07-28
		// probe, server/discover, to a legacy server) it would cost
		// --timeout and ask nothing the last probe did not.
		quiet := &scenario.Scenario{Name: "quiet", Rules: []string{"SONDE-ID-3"}, Run: func(e *scenario.Env) error {
			e.Skip("SONDE-ID-3", "nothing of this scenario applies")
			return nil
		}}
		after := &scenario.Scenario{Name: "after", Rules: []string{"SONDE-ID-3"}, Run: func(e *scenario.Env) error {
			var sent []string
			for _, en := range e.Peer().Recorder().Slice(0, -1) {
				if en.Scenario == "quiet" && en.Dir == transcript.Sent {
					sent = append(sent, en.Text)
				}
			}
			if len(sent) > 0 {
				e.Fail("SONDE-ID-3", -1, "lines written during or after scenario quiet", "none", sent[0])
			} else {
				e.Pass("SONDE-ID-3", -1)
			}
			return nil
		}}
		rep := runTestServer("sonde-serve", 0, []*scenario.Scenario{listing("before", "b-1"), quiet, after}, runner.Config{Jobs: 1})
		Expect(findings(rep, "after", verdict.Fail, verdict.Error)).To(BeEmpty(), "%v", findings(rep, "after", verdict.Fail, verdict.Error))
		Expect(findings(rep, "after", verdict.Pass)).NotTo(BeEmpty())
		Expect(findings(rep, "quiet", verdict.Fail, verdict.Error)).To(BeEmpty())
	})

	It("waits once for a line that is not JSON that the server ignores: the next such wait in the lane ends at once and fails, naming it", func() {
		rep := runFault("malformed-silent", malformed())
		msgs := messages(rep, "SONDE-MALFORMED-2")
		Expect(msgs).To(HaveKey("malformed"))
		Expect(msgs["malformed"]).To(HavePrefix("fail: not waited for "))
		Expect(msgs["malformed"]).To(ContainSubstring("which depends on an answer to a line that is not JSON: the server sent no /id = null, /ok = false within 1s (--timeout) in scenario malformed"))
		// What the server wrote meanwhile depends on the scheduler: a
		// stderr line of its start may fall inside the wait under load.
		Expect(messages(rep, "SONDE-MALFORMED-1")).To(HaveKeyWithValue("malformed", SatisfyAny(
			Equal("fail: no frame within 1s (--timeout); the server is still running and wrote nothing meanwhile"),
			MatchRegexp(`^fail: no frame within 1s \(--timeout\); the server is still running and wrote 0 line\(s\) on stdout and \d+ on stderr meanwhile$`))))
		Expect(messages(rep, "SONDE-GEN-SURVIVE")).To(HaveKeyWithValue("malformed", HavePrefix("pass")))
	})

	It("shows a server that hangs on a line in the one wait for its answer: the probe sent behind the line had its bound meanwhile and is not waited for again", func() {
		rep := runFault("mute-after-malformed", malformed())
		Expect(messages(rep, "SONDE-MALFORMED-2")).To(HaveKeyWithValue("malformed", HavePrefix("fail: no frame within 1s (--timeout)")))
		survive := messages(rep, "SONDE-GEN-SURVIVE")["malformed"]
		Expect(survive).To(HavePrefix("fail: "))
		Expect(survive).To(MatchRegexp(`no response to request id "m-2" \(tools/list\) in the [0-9.]+m?s since it was sent \(bound 1s \(--timeout\)\), which other steps spent waiting; the server is still running and wrote nothing meanwhile`))
	})

	It("ends the wait for pipelined requests once the server has answered each with an id that matches none of them", func() {
		// A minute: a wait that ran its bound would say so, and take it.
		rep, err := testrun.Run(testrun.Server{Protocol: "sonde-serve", Faults: []string{"wrong-id"}}, runner.Config{
			Scenarios: []*scenario.Scenario{sondeScenario("pipeline")}, Timeout: time.Minute, Jobs: 1,
		})
		Expect(err).NotTo(HaveOccurred())
		msg := messages(rep, "SONDE-ONE-RESPONSE-1")["pipeline"]
		Expect(msg).To(MatchRegexp(`^fail: no response to the request named p1: the server did not answer: no response to request id "p-1" \(tools/list\), and none owed: every request in flight had a response whose id matches none of them, one each, when the wait ended after [0-9.]+m?s \(bound 1m0s \(--timeout\)\)`))
	})
})

// malformed is the sonde-serve suite's malformed scenario.
func malformed() *scenario.Scenario { return sondeScenario("malformed") }

// sondeScenario is a scenario of the sonde-serve suite.
func sondeScenario(name string) *scenario.Scenario {
	b, err := protocols.Load("sonde-serve")
	Expect(err).NotTo(HaveOccurred())
	for _, s := range b.Scenarios {
		if s.Name == name {
			return s
		}
	}
	Fail("the sonde-serve suite has no scenario " + name)
	return nil
}
